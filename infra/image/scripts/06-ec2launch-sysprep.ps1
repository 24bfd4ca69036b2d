# EC2Launch v2: on each launch from this image, a random Administrator password encrypted to the
# launch's key pair (what GetPasswordData returns and the worker decrypts) and the root
# partition extended to the volume size the plan asks for. Then sysprep, which shuts down.
$ErrorActionPreference = 'Stop'
Copy-Item -Path 'C:\ProgramData\LegendCloud\ec2launch-agent-config.yml' -Destination 'C:\ProgramData\Amazon\EC2Launch\config\agent-config.yml' -Force
Remove-Item 'C:\ProgramData\LegendCloud\ec2launch-agent-config.yml'

# The build's WinRM listener and firewall rule must not ship in the image.
Remove-NetFirewallRule -Name 'packer-winrm-https'
$ec2launch = 'C:\Program Files\Amazon\EC2Launch\EC2Launch.exe'
# Detached: sysprep ends with a shutdown, which would cut Packer's WinRM session mid-command.
Start-Process -FilePath 'powershell.exe' -ArgumentList '-NoProfile', '-Command', "Start-Sleep -Seconds 5; Get-ChildItem WSMan:\Localhost\Listener | Remove-Item -Recurse -Force; & '$ec2launch' reset --clean; & '$ec2launch' sysprep --shutdown --clean"
Write-Output 'sysprep started; the instance stops itself and Packer snapshots it'
