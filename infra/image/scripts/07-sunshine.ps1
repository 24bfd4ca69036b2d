# Sunshine, the open-source GameStream host Moonlight clients connect to, as a Windows service,
# pinned to a tagged release and its SHA-256 (packer variables sunshine_msi_url, sunshine_msi_sha256).
# Its web UI and REST API (HTTPS 47990) get credentials of the machine's own at every boot
# (machine-setup.ps1, from the user data the worker writes at launch); until then nobody can use
# them. `origin_web_ui_allowed = wan`: the worker calls the API from outside the machine's network,
# and the security group, not Sunshine, keeps 47990 to the worker's addresses (WORKER_EGRESS_CIDRS).
# Settings are Sunshine's own, from its docs/configuration.md (LizardByte/Sunshine).
$ErrorActionPreference = 'Stop'
$url = $env:SUNSHINE_MSI_URL
$sha256 = $env:SUNSHINE_MSI_SHA256
if (-not $url) { throw 'SUNSHINE_MSI_URL is not set (packer -var sunshine_msi_url=...)' }
if ($sha256 -notmatch '^[0-9A-Fa-f]{64}$') { throw 'SUNSHINE_MSI_SHA256 is not a SHA-256: pin the installer (packer -var sunshine_msi_sha256=...)' }
$msi = 'C:\ProgramData\LegendCloud\sunshine-installer.msi'
Invoke-WebRequest -UseBasicParsing -Uri $url -OutFile $msi
$actual = (Get-FileHash -Algorithm SHA256 -Path $msi).Hash
if ($actual -ne $sha256.ToUpper()) { throw "Sunshine installer SHA-256 $actual is not the pinned $sha256 ($url)" }
# Silent: the installer installs the service (SunshineService) and its firewall rules.
$process = Start-Process msiexec.exe -ArgumentList '/i', $msi, '/qn', '/norestart' -Wait -PassThru
if ($process.ExitCode -ne 0 -and $process.ExitCode -ne 3010) { throw "Sunshine installer exited with $($process.ExitCode)" }
Remove-Item $msi

$root = 'C:\Program Files\Sunshine'
if (-not (Test-Path "$root\sunshine.exe")) { throw "Sunshine is not at $root" }
$config = "$root\config\sunshine.conf"
New-Item -ItemType Directory -Force -Path "$root\config" | Out-Null
Set-Content -Path $config -Encoding ASCII -Value @(
  'sunshine_name = Legend Cloud PC',
  'origin_web_ui_allowed = wan',
  'encoder = nvenc',
  # Sound: play games into Steam Streaming Speakers (10-audio.ps1) while streaming, the virtual
  # sink Sunshine's docs name; Sunshine reinstalls its driver at start if it went missing.
  'virtual_sink = Steam Streaming Speakers',
  'install_steam_audio_drivers = enabled',
  # Gamepads: an Xbox 360 pad, which ViGEmBus (11-gamepad.ps1) creates and Windows shows through XInput.
  'gamepad = x360',
  # The client's mode: stream only the virtual display (08-virtual-display.ps1), switched to the
  # resolution and refresh rate Moonlight asks for. output_name (the virtual display's device id,
  # which Sunshine derives per machine) is written at boot by machine-setup.ps1.
  'dd_configuration_option = ensure_only_display',
  'dd_resolution_option = auto',
  'dd_refresh_rate_option = auto'
)

# Moonlight's ports, and Sunshine's API for the worker (the security group narrows who reaches it).
New-NetFirewallRule -Name 'legend-moonlight-tcp' -DisplayName 'Moonlight (TCP 47984, 47989, 48010)' -Protocol TCP -LocalPort 47984, 47989, 48010 -Action Allow | Out-Null
New-NetFirewallRule -Name 'legend-moonlight-udp' -DisplayName 'Moonlight (UDP 47998-48000, 48010)' -Protocol UDP -LocalPort '47998-48000', 48010 -Action Allow | Out-Null
New-NetFirewallRule -Name 'legend-sunshine-api' -DisplayName 'Sunshine API (TCP 47990, worker only by security group)' -Protocol TCP -LocalPort 47990 -Action Allow | Out-Null

# Sunshine makes its certificate and key on first start. One made here would be in the image and
# shared by every machine: stop it, drop what it made, and leave it off until a machine's first
# boot (machine-setup.ps1 starts it with that machine's credentials, and it makes its own).
Stop-Service -Name SunshineService
Set-Service -Name SunshineService -StartupType Manual
foreach ($made in "$root\config\credentials", "$root\config\sunshine_state.json") {
  if (Test-Path $made) { Remove-Item -Recurse -Force $made }
}
Write-Output "Sunshine installed as SunshineService from $url (SHA-256 $actual); web API open to the WAN, credentials set per machine at boot"
