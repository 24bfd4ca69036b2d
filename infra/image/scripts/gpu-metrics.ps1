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

$readings = & $smi --query-gpu=utilization.gpu --format=csv,noheader,nounits
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
