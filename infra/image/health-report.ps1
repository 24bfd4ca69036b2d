# The machine's own health report (scheduled tasks "LegendCloud health report (boot)" and
# "LegendCloud health report", every 5 minutes), posted to the healthUrl of its settings as JSON:
# GPU name and driver, whether NVIDIA's gaming driver is licensed (nvidia-smi -q, "License
# Status"), the display Sunshine captures and its mode, Sunshine running and the SHA-256 of the
# certificate it serves (what pairing pins), DCV running, Remote Desktop listening, free disk.
# Signed with the machine's own secret: X-Legend-Signature = "v1=" + hex HMAC-SHA256 of
# "<unix seconds>.<body>", the seconds in X-Legend-Timestamp (api/routes/machineHealth.ts).
param([switch]$Boot)
$ErrorActionPreference = 'Stop'
[Net.ServicePointManager]::SecurityProtocol = [Net.SecurityProtocolType]::Tls12
$dir = 'C:\ProgramData\LegendCloud'
$log = Join-Path $dir 'health-report.log'
function Write-Log([string]$message) { Add-Content -Path $log -Value "$(Get-Date -Format o) $message" }
$settingsFile = Join-Path $dir 'machine.json'

# At boot the setup script may not have written the settings yet.
$waited = 0
while (-not (Test-Path $settingsFile)) {
  if (-not $Boot -or $waited -ge 600) { Write-Log 'no machine settings: nothing to report to'; exit 0 }
  Start-Sleep -Seconds 15; $waited += 15
}
$settings = Get-Content -Raw -Path $settingsFile | ConvertFrom-Json

function Get-InstanceId {
  $token = Invoke-RestMethod -Method Put -Uri 'http://169.254.169.254/latest/api/token' -Headers @{ 'X-aws-ec2-metadata-token-ttl-seconds' = '300' } -TimeoutSec 10
  Invoke-RestMethod -Uri 'http://169.254.169.254/latest/meta-data/instance-id' -Headers @{ 'X-aws-ec2-metadata-token' = $token } -TimeoutSec 10
}

function Get-Gpu {
  $smi = 'C:\Windows\System32\nvidia-smi.exe'
  if (-not (Test-Path $smi)) { $smi = 'C:\Program Files\NVIDIA Corporation\NVSMI\nvidia-smi.exe' }
  if (-not (Test-Path $smi)) { return @{ name = $null; driverVersion = $null; licensed = $null } }
  $line = (& $smi --query-gpu=name,driver_version --format=csv,noheader | Select-Object -First 1)
  if ($LASTEXITCODE -ne 0 -or -not $line) { return @{ name = $null; driverVersion = $null; licensed = $null } }
  $name, $driver = $line -split ',\s*', 2
  # The gaming driver reports its licence in `nvidia-smi -q` ("License Status : Licensed ...");
  # no such line (a driver that needs none) is reported as unknown, not as unlicensed.
  $query = (& $smi -q | Out-String)
  $status = [regex]::Match($query, 'License Status\s*:\s*([^\r\n]+)')
  $licensed = if ($status.Success) { $status.Groups[1].Value.Trim().StartsWith('Licensed') } else { $null }
  if ($licensed -eq $false) { Write-Log "NVIDIA driver not licensed: $($status.Groups[1].Value.Trim())" }
  return @{ name = $name.Trim(); driverVersion = $driver.Trim(); licensed = $licensed }
}

function Get-Display {
  # The mode of the active display with the most lines (the virtual display on a machine with no monitor).
  $active = Get-CimInstance -ClassName Win32_VideoController |
    Where-Object { $_.CurrentHorizontalResolution -and $_.CurrentVerticalResolution } |
    Sort-Object -Property CurrentVerticalResolution -Descending | Select-Object -First 1
  if (-not $active) { return @{ present = $false; width = $null; height = $null; refreshHz = $null } }
  return @{
    present = $true
    width = [int]$active.CurrentHorizontalResolution
    height = [int]$active.CurrentVerticalResolution
    refreshHz = if ($active.CurrentRefreshRate) { [int]$active.CurrentRefreshRate } else { $null }
  }
}

function Test-Running([string]$service) {
  $found = Get-Service -Name $service -ErrorAction SilentlyContinue
  return [bool]($found -and $found.Status -eq 'Running')
}

function Get-SunshineCertificate {
  $pem = 'C:\Program Files\Sunshine\config\credentials\cacert.pem'
  if (-not (Test-Path $pem)) { return $null }
  $certificate = New-Object System.Security.Cryptography.X509Certificates.X509Certificate2($pem)
  $digest = [System.Security.Cryptography.SHA256]::Create().ComputeHash($certificate.RawData)
  return -join ($digest | ForEach-Object { $_.ToString('x2') })
}

function New-Report {
  $disk = Get-CimInstance -ClassName Win32_LogicalDisk -Filter "DeviceID='C:'"
  $report = [ordered]@{
    instanceId = Get-InstanceId
    gpu = Get-Gpu
    display = Get-Display
    sunshine = @{ running = (Test-Running 'SunshineService'); certSha256 = Get-SunshineCertificate }
    dcv = @{ running = (Test-Running 'dcvserver') }
    rdp = @{ listening = [bool](Get-NetTCPConnection -LocalPort 3389 -State Listen -ErrorAction SilentlyContinue) }
    disk = @{ freeBytes = [long]$disk.FreeSpace; totalBytes = [long]$disk.Size }
  }
  return ($report | ConvertTo-Json -Depth 4 -Compress)
}

function Send-Report([string]$body) {
  $timestamp = [DateTimeOffset]::UtcNow.ToUnixTimeSeconds()
  $hmac = New-Object System.Security.Cryptography.HMACSHA256 (, [System.Text.Encoding]::UTF8.GetBytes($settings.healthSecret))
  $mac = -join ($hmac.ComputeHash([System.Text.Encoding]::UTF8.GetBytes("$timestamp.$body")) | ForEach-Object { $_.ToString('x2') })
  try {
    # The exact bytes signed are the bytes sent.
    $answer = Invoke-WebRequest -UseBasicParsing -Method Post -Uri $settings.healthUrl -TimeoutSec 20 `
      -ContentType 'application/json' -Body ([System.Text.Encoding]::UTF8.GetBytes($body)) `
      -Headers @{ 'X-Legend-Timestamp' = "$timestamp"; 'X-Legend-Signature' = "v1=$mac" }
    return [int]$answer.StatusCode
  } catch [System.Net.WebException] {
    if ($_.Exception.Response) { return [int]$_.Exception.Response.StatusCode }
    Write-Log "report not delivered: $($_.Exception.Message)"
    return 0
  }
}

# At boot the site refuses reports (409) until it has seen the machine's new address: try for
# up to 10 minutes. Otherwise one attempt; the next comes in 5 minutes.
$attempts = if ($Boot) { 20 } else { 1 }
for ($i = 1; $i -le $attempts; $i++) {
  $status = Send-Report (New-Report)
  if ($status -eq 200) { Write-Log 'report accepted'; exit 0 }
  Write-Log "report answered $status (attempt $i of $attempts)"
  if ($i -lt $attempts) { Start-Sleep -Seconds 30 }
}
exit 1
