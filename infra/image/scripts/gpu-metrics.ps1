# Once a minute (scheduled task "LegendCloud GPU metrics"): average GPU utilisation from
# nvidia-smi, published as namespace 'LegendCloud/GPU', metric 'GPUUtilization', dimension
# InstanceId: what core/providers/cloudwatch.ts reads for the usage page.
$ErrorActionPreference = 'Stop'
$smi = 'C:\Windows\System32\nvidia-smi.exe'
if (-not (Test-Path $smi)) { $smi = 'C:\Program Files\NVIDIA Corporation\NVSMI\nvidia-smi.exe' }

# IMDSv2: the instance launches with HttpTokens=required.
$token = Invoke-RestMethod -Method Put -Uri 'http://169.254.169.254/latest/api/token' -Headers @{ 'X-aws-ec2-metadata-token-ttl-seconds' = '300' }
$headers = @{ 'X-aws-ec2-metadata-token' = $token }
$instanceId = Invoke-RestMethod -Uri 'http://169.254.169.254/latest/meta-data/instance-id' -Headers $headers
$region = Invoke-RestMethod -Uri 'http://169.254.169.254/latest/meta-data/placement/region' -Headers $headers

$readings = & $smi '--query-gpu=utilization.gpu' '--format=csv,noheader,nounits'
if ($LASTEXITCODE -ne 0) { throw "nvidia-smi exited with $LASTEXITCODE" }
$values = @($readings | ForEach-Object { [double]($_.Trim()) })
if ($values.Count -eq 0) { throw 'nvidia-smi reported no GPU' }
$average = ($values | Measure-Object -Average).Average

$datum = New-Object Amazon.CloudWatch.Model.MetricDatum
$datum.MetricName = 'GPUUtilization'
$datum.Unit = 'Percent'
$datum.Value = $average
$datum.Timestamp = (Get-Date).ToUniversalTime()
$dimension = New-Object Amazon.CloudWatch.Model.Dimension
$dimension.Name = 'InstanceId'
$dimension.Value = $instanceId
$datum.Dimensions = @($dimension)
Write-CWMetricData -Namespace 'LegendCloud/GPU' -MetricData $datum -Region $region

# Browser (Amazon DCV) connections to the console session, for the idle auto-stop
# (core/providers/cloudwatch.ts IDLE_METRICS.dcv): namespace 'LegendCloud/Windows', metric
# 'DcvConnections'. Remote Desktop sessions come from the CloudWatch agent's counter. Without
# DCV installed nobody can be connected through it: 0, so the auto-stop still has its evidence.
$dcv = 'C:\Program Files\NICE\DCV\Server\bin\dcv.exe'
$connections = 0
if (Test-Path $dcv) {
  $listed = & $dcv list-connections --json console
  if ($LASTEXITCODE -ne 0) { throw "dcv list-connections exited with $LASTEXITCODE" }
  $connections = @(($listed | Out-String | ConvertFrom-Json)).Count
}
$sessions = New-Object Amazon.CloudWatch.Model.MetricDatum
$sessions.MetricName = 'DcvConnections'
$sessions.Unit = 'Count'
$sessions.Value = $connections
$sessions.Timestamp = (Get-Date).ToUniversalTime()
$sessions.Dimensions = @($dimension)
Write-CWMetricData -Namespace 'LegendCloud/Windows' -MetricData $sessions -Region $region
