# The image proves itself before it is sysprepped: every check runs, each prints one line (OK or
# FAIL, its name, what was seen), and any FAIL ends the script non-zero, which fails the Packer
# build (its powershell provisioner accepts exit code 0 only). The same checks, minus the
# build-only ones (EC2Launch's config, the tasks registered, the service starting), are in every
# machine's health report (health-report.ps1) and in `npm run aws:smoke`'s verdict.
$ErrorActionPreference = 'Stop'
$results = New-Object System.Collections.Generic.List[object]
function Add-Result([string]$name, [bool]$ok, [string]$seen) {
  $results.Add([pscustomobject]@{ Name = $name; Ok = $ok; Seen = $seen })
  Write-Output ('{0} {1}: {2}' -f $(if ($ok) { 'OK  ' } else { 'FAIL' }), $name, $seen)
}
# One check failing (a cmdlet throwing) is that check's FAIL, never the end of the others.
function Test-Check([string]$name, [scriptblock]$check) {
  try { & $check } catch { Add-Result $name $false "the check itself failed: $($_.Exception.Message)" }
}

# 1. The NVIDIA driver reports a licence (the gaming driver's, or EC2's for GRID). Licensing may
#    take minutes after the reboot: asked again every 20 seconds for up to 10 minutes.
Test-Check 'driver licensed' {
  $smi = @("$env:SystemRoot\System32\nvidia-smi.exe", "$env:ProgramFiles\NVIDIA Corporation\NVSMI\nvidia-smi.exe") |
    Where-Object { Test-Path $_ } | Select-Object -First 1
  if (-not $smi) {
    $smi = (Get-ChildItem -Path "$env:SystemRoot\System32\DriverStore\FileRepository" -Filter 'nvidia-smi.exe' -Recurse | Select-Object -First 1).FullName
  }
  if (-not $smi) { return Add-Result 'driver licensed' $false 'nvidia-smi.exe not found: no NVIDIA driver' }
  $deadline = (Get-Date).AddMinutes(10)
  do {
    $status = [regex]::Match((& $smi -q | Out-String), 'License Status\s*:\s*([^\r\n]+)')
    $seen = if ($status.Success) { $status.Groups[1].Value.Trim() } else { 'no License Status line in nvidia-smi -q' }
    if ($seen.StartsWith('Licensed')) { return Add-Result 'driver licensed' $true $seen }
    Start-Sleep -Seconds 20
  } while ((Get-Date) -lt $deadline)
  Add-Result 'driver licensed' $false "$seen (after 10 minutes)"
}

# 2. The virtual display: its device healthy, on the desktop, offering the client's modes.
Test-Check 'virtual display' {
  $vdd = Get-PnpDevice -Class Display -PresentOnly | Where-Object { $_.HardwareID -contains 'Root\MttVDD' } | Select-Object -First 1
  if (-not $vdd) { return Add-Result 'virtual display' $false 'no Root\MttVDD display adapter' }
  $controller = Get-CimInstance -ClassName Win32_VideoController | Where-Object { $_.PNPDeviceID -eq $vdd.InstanceId } | Select-Object -First 1
  $mode = if ($controller -and $controller.CurrentHorizontalResolution) {
    "$($controller.CurrentHorizontalResolution)x$($controller.CurrentVerticalResolution)@$($controller.CurrentRefreshRate)"
  } else { 'not on the desktop' }
  Add-Result 'virtual display' ($vdd.Status -eq 'OK' -and $mode -ne 'not on the desktop') "$($vdd.FriendlyName): status $($vdd.Status), $mode"
  if ($controller) {
    $offered = @(Get-CimAssociatedInstance -InputObject $controller -ResultClassName CIM_VideoControllerResolution |
      ForEach-Object { '{0}x{1}@{2}' -f $_.HorizontalResolution, $_.VerticalResolution, $_.RefreshRate })
    $wanted = foreach ($size in '1280x720', '1280x800', '1600x900', '1920x1080', '1920x1200', '2560x1440', '2560x1600', '3840x2160') {
      foreach ($hz in 60, 90, 120, 144) { "$size@$hz" }
    }
    $missing = @($wanted | Where-Object { $offered -notcontains $_ })
    Add-Result 'virtual display modes' ($missing.Count -eq 0) $(if ($missing.Count -eq 0) { "all $($wanted.Count) modes offered" } else { "missing $($missing -join ', ')" })
  }
}

# 3. Sound: Windows Audio automatic and running, an audio endpoint present.
Test-Check 'audio' {
  $service = Get-Service -Name Audiosrv
  $endpoint = Get-PnpDevice -Class AudioEndpoint -PresentOnly | Where-Object { $_.Status -eq 'OK' -and $_.FriendlyName -like '*Steam Streaming Speakers*' } | Select-Object -First 1
  $seen = "Windows Audio $($service.Status) ($($service.StartType)); endpoint $(if ($endpoint) { $endpoint.FriendlyName } else { 'none' })"
  Add-Result 'audio' ($service.Status -eq 'Running' -and $service.StartType -eq 'Automatic' -and [bool]$endpoint) $seen
}

# 4. Gamepads: the ViGEmBus device present and healthy, Windows' Xbox 360 driver in the store.
Test-Check 'gamepad bus' {
  $bus = Get-PnpDevice -PresentOnly | Where-Object { $_.HardwareID -match '^(Root|Nefarius)\\ViGEmBus' } | Select-Object -First 1
  $xusb = Get-ChildItem -Path "$env:SystemRoot\System32\DriverStore\FileRepository" -Directory -Filter 'xusb2*.inf_*' -ErrorAction SilentlyContinue
  $seen = "ViGEmBus $(if ($bus) { "$($bus.FriendlyName) $($bus.Status)" } else { 'missing' }); Xbox 360 driver $(if ($xusb) { 'in the driver store' } else { 'missing' })"
  Add-Result 'gamepad bus' ([bool]$bus -and $bus.Status -eq 'OK' -and [bool]$xusb) $seen
}

# 5. Sunshine: the service starts and its local API answers (401 without credentials is an
#    answer). Then it is stopped and what it made at start (its certificate, state and log) is
#    deleted again, so no machine shares them (07-sunshine.ps1).
Test-Check 'Sunshine' {
  $root = 'C:\Program Files\Sunshine'
  Start-Service -Name SunshineService
  try {
    $code = '000'
    $deadline = (Get-Date).AddSeconds(60)
    while ($code -eq '000' -and (Get-Date) -lt $deadline) {
      Start-Sleep -Seconds 3
      $code = & "$env:SystemRoot\System32\curl.exe" -k -s -o NUL -w '%{http_code}' --max-time 5 'https://127.0.0.1:47990/api/clients/list'
    }
    $running = (Get-Service -Name SunshineService).Status
    Add-Result 'Sunshine' ($running -eq 'Running' -and $code -ne '000') "SunshineService $running; its API answered HTTP $code"
  } finally {
    Stop-Service -Name SunshineService
    foreach ($made in "$root\config\credentials", "$root\config\sunshine_state.json") {
      if (Test-Path $made) { Remove-Item -Recurse -Force $made }
    }
    # Its logs name this build machine's display devices: machine-setup.ps1 must read a machine's own.
    Get-ChildItem -Path "$root\config" -Filter 'sunshine.log*' | Remove-Item -Force
  }
}

# 6. DCV listens on 8443.
Test-Check 'DCV' {
  $listening = [bool](Get-NetTCPConnection -LocalPort 8443 -State Listen -ErrorAction SilentlyContinue)
  Add-Result 'DCV' $listening "dcvserver $((Get-Service -Name dcvserver).Status); TCP 8443 $(if ($listening) { 'listening' } else { 'not listening' })"
}

# 7. Remote Desktop listens, and the console hand-back and health-report tasks are registered.
Test-Check 'Remote Desktop' {
  $listening = [bool](Get-NetTCPConnection -LocalPort 3389 -State Listen -ErrorAction SilentlyContinue)
  $tasks = 'LegendCloud console hand-back', 'LegendCloud health report (boot)', 'LegendCloud health report'
  $missing = @($tasks | Where-Object { -not (Get-ScheduledTask -TaskName $_ -ErrorAction SilentlyContinue) })
  Add-Result 'Remote Desktop' ($listening -and $missing.Count -eq 0) "TCP 3389 $(if ($listening) { 'listening' } else { 'not listening' }); tasks missing: $(if ($missing.Count) { $missing -join ', ' } else { 'none' })"
}

# 8. EC2Launch's configuration validates (06-ec2launch-config.ps1 put it in place).
Test-Check 'EC2Launch config' {
  $ErrorActionPreference = 'Continue'
  $output = & 'C:\Program Files\Amazon\EC2Launch\EC2Launch.exe' validate 2>&1 | Out-String
  Add-Result 'EC2Launch config' ($LASTEXITCODE -eq 0) "ec2launch validate exited $LASTEXITCODE $($output.Trim())"
}

$failed = @($results | Where-Object { -not $_.Ok })
if ($failed.Count -gt 0) {
  Write-Output "IMAGE VERIFICATION FAILED: $(($failed | ForEach-Object { "$($_.Name) ($($_.Seen))" }) -join '; ')"
  exit 1
}
Write-Output "Image verified: $($results.Count) checks passed"
