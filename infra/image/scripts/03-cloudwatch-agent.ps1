# The CloudWatch agent with the configuration kept in the repository (cloudwatch-agent.json):
# CPU, memory and active Remote Desktop sessions. It publishes with the instance profile's
# role (infra/iam/instance-policy.json); nothing here holds a key.
$ErrorActionPreference = 'Stop'
$msi = 'C:\ProgramData\LegendCloud\amazon-cloudwatch-agent.msi'
Invoke-WebRequest -UseBasicParsing -Uri 'https://amazoncloudwatch-agent.s3.amazonaws.com/windows/amd64/latest/amazon-cloudwatch-agent.msi' -OutFile $msi
$process = Start-Process msiexec.exe -ArgumentList '/i', $msi, '/qn', '/norestart' -Wait -PassThru
if ($process.ExitCode -ne 0) { throw "CloudWatch agent installer exited with $($process.ExitCode)" }
Remove-Item $msi
$ctl = 'C:\Program Files\Amazon\AmazonCloudWatchAgent\amazon-cloudwatch-agent-ctl.ps1'
# -s starts it now and on every boot; the config is read again at each start.
& $ctl -a fetch-config -m ec2 -c file:C:\ProgramData\LegendCloud\cloudwatch-agent.json -s
Set-Service -Name AmazonCloudWatchAgent -StartupType Automatic
Write-Output 'CloudWatch agent installed and configured'
