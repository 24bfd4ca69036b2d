# The machine's own health report (scheduled tasks "LegendCloud health report (boot)" and
# "LegendCloud health report", every 5 minutes), posted to the healthUrl of its settings as JSON:
# GPU name and driver, whether NVIDIA's gaming driver is licensed (nvidia-smi -q, "License
# Status"), the display Sunshine captures, its mode, whether it is the virtual display and the
# modes it offers, Sunshine running, answering this machine's credentials and the SHA-256 of the
# certificate it serves (what pairing pins), Windows Audio and the audio endpoint, the gamepad
# bus and Windows' XInput driver, DCV running, Remote Desktop listening and the console hand-back
# task in place, free disk and space left unallocated. The same checks as the build's
# (scripts/90-verify-image.ps1), minus the build-only ones.
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

function Find-NvidiaSmi {
  foreach ($path in "$env:SystemRoot\System32\nvidia-smi.exe", "$env:ProgramFiles\NVIDIA Corporation\NVSMI\nvidia-smi.exe") {
    if (Test-Path $path) { return $path }
  }
  $found = Get-ChildItem -Path "$env:SystemRoot\System32\DriverStore\FileRepository" -Filter 'nvidia-smi.exe' -Recurse -ErrorAction SilentlyContinue |
    Select-Object -First 1
  if ($found) { return $found.FullName }
  return $null
}

function Get-Gpu {
  $smi = Find-NvidiaSmi
  if (-not $smi) { return @{ name = $null; driverVersion = $null; licensed = $null } }
  $line = (& $smi '--query-gpu=name,driver_version' '--format=csv,noheader' | Select-Object -First 1)
  if ($LASTEXITCODE -ne 0 -or -not $line) { return @{ name = $null; driverVersion = $null; licensed = $null } }
  $name, $driver = $line -split ',\s*', 2
  # The gaming driver reports its licence in `nvidia-smi -q` ("License Status : Licensed (Expiry: N/A)"
  # on AWS's page); no such line (a driver that needs none) is reported as unknown, not as unlicensed.
  $query = (& $smi -q | Out-String)
  $status = [regex]::Match($query, 'License Status\s*:\s*([^\r\n]+)')
  $licensed = if ($status.Success) { $status.Groups[1].Value.Trim().StartsWith('Licensed') } else { $null }
  if ($licensed -eq $false) { Write-Log "NVIDIA driver not licensed: $($status.Groups[1].Value.Trim())" }
  return @{ name = $name.Trim(); driverVersion = $driver.Trim(); licensed = $licensed }
}

function Get-Display {
  # The virtual display (08-virtual-display.ps1): its adapter and whether it is on the desktop.
  $vdd = Get-PnpDevice -Class Display -PresentOnly -ErrorAction SilentlyContinue |
    Where-Object { $_.HardwareID -contains 'Root\MttVDD' } | Select-Object -First 1
  $controllers = @(Get-CimInstance -ClassName Win32_VideoController)
  $virtualController = if ($vdd) { $controllers | Where-Object { $_.PNPDeviceID -eq $vdd.InstanceId } | Select-Object -First 1 } else { $null }
  $onDesktop = [bool]($virtualController -and $virtualController.CurrentHorizontalResolution)
  # The mode streamed: the virtual display's when it is on the desktop, else the active display
  # with the most lines (EC2's basic adapter, on a machine whose virtual display failed).
  $active = if ($onDesktop) { $virtualController } else {
    $controllers | Where-Object { $_.CurrentHorizontalResolution -and $_.CurrentVerticalResolution } |
      Sort-Object -Property CurrentVerticalResolution -Descending | Select-Object -First 1
  }
  $modes = if ($virtualController) {
    @(Get-CimAssociatedInstance -InputObject $virtualController -ResultClassName CIM_VideoControllerResolution -ErrorAction SilentlyContinue |
      ForEach-Object { '{0}x{1}@{2}' -f $_.HorizontalResolution, $_.VerticalResolution, $_.RefreshRate } |
      Sort-Object -Unique)
  } else { $null }
  if (-not $active) { return @{ present = $false; width = $null; height = $null; refreshHz = $null; virtual = $false; modes = $modes } }
  return @{
    present = $true
    width = [int]$active.CurrentHorizontalResolution
    height = [int]$active.CurrentVerticalResolution
    refreshHz = if ($active.CurrentRefreshRate) { [int]$active.CurrentRefreshRate } else { $null }
    virtual = [bool]($onDesktop -and $vdd.Status -eq 'OK')
    modes = $modes
  }
}

function Get-Audio {
  $service = Get-Service -Name Audiosrv -ErrorAction SilentlyContinue
  $endpoints = @(Get-PnpDevice -Class AudioEndpoint -PresentOnly -ErrorAction SilentlyContinue | Where-Object { $_.Status -eq 'OK' })
  # What Sunshine plays into (sunshine.conf virtual_sink), else any other speaker.
  $endpoint = $endpoints | Where-Object { $_.FriendlyName -like '*Steam Streaming Speakers*' } | Select-Object -First 1
  if (-not $endpoint) { $endpoint = $endpoints | Where-Object { $_.FriendlyName -notlike '*Microphone*' } | Select-Object -First 1 }
  return @{
    serviceRunning = [bool]($service -and $service.Status -eq 'Running')
    endpoint = if ($endpoint) { $endpoint.FriendlyName } else { $null }
  }
}

function Get-Gamepad {
  $bus = Get-PnpDevice -PresentOnly -ErrorAction SilentlyContinue |
    Where-Object { $_.HardwareID -match '^(Root|Nefarius)\\ViGEmBus' -and $_.Status -eq 'OK' } | Select-Object -First 1
  # Windows' Xbox 360 (XUSB) driver in the driver store (11-gamepad.ps1 added it there).
  $xusb = Get-ChildItem -Path "$env:SystemRoot\System32\DriverStore\FileRepository" -Directory -Filter 'xusb2*.inf_*' -ErrorAction SilentlyContinue
  return @{ busPresent = [bool]$bus; xinput = [bool]$xusb }
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

# Whether Sunshine's API answers this machine's own credentials, asked on the machine itself
# (loopback: nobody can stand in the middle, so its self-signed certificate is not checked).
function Test-SunshineApi {
  $curl = "$env:SystemRoot\System32\curl.exe"
  if (-not (Test-Running 'SunshineService') -or -not (Test-Path $curl)) { return $false }
  $code = & $curl -k -s -o NUL -w '%{http_code}' --max-time 10 -u "$($settings.sunshineUsername):$($settings.sunshinePassword)" 'https://127.0.0.1:47990/api/clients/list'
  return $code -eq '200'
}

function Test-ConsoleHandoff {
  $task = Get-ScheduledTask -TaskName 'LegendCloud console hand-back' -ErrorAction SilentlyContinue
  return [bool]($task -and $task.State -ne 'Disabled')
}

function Get-SystemDisk {
  $disk = Get-CimInstance -ClassName Win32_LogicalDisk -Filter "DeviceID='C:'"
  $partition = Get-Partition -DriveLetter C
  $supported = Get-PartitionSupportedSize -DriveLetter C
  return @{
    freeBytes = [long]$disk.FreeSpace
    totalBytes = [long]$disk.Size
    unallocatedBytes = [long][math]::Max(0.0, [double]$supported.SizeMax - [double]$partition.Size)
  }
}

function New-Report {
  $report = [ordered]@{
    instanceId = Get-InstanceId
    gpu = Get-Gpu
    display = Get-Display
    sunshine = @{ running = (Test-Running 'SunshineService'); certSha256 = Get-SunshineCertificate; apiAnswers = (Test-SunshineApi) }
    dcv = @{ running = (Test-Running 'dcvserver') }
    rdp = @{ listening = [bool](Get-NetTCPConnection -LocalPort 3389 -State Listen -ErrorAction SilentlyContinue); consoleHandoff = (Test-ConsoleHandoff) }
    disk = Get-SystemDisk
    audio = Get-Audio
    gamepad = Get-Gamepad
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
