# Sound. Windows Server ships with the Windows Audio service off and no audio device, so Sunshine
# streams silence and Amazon DCV has nothing to play.
#   1. Windows Audio (Audiosrv) and the Windows Audio Endpoint Builder start automatically.
#   2. A virtual audio endpoint: Steam Streaming Speakers, the sink Sunshine's documentation names
#      (docs/configuration.md, virtual_sink: "Steam must be installed"; install_steam_audio_drivers
#      "Installs the Steam Streaming Speakers driver (if Steam is installed)"). Steam is installed
#      silently and the driver installed from Steam's INF the way Sunshine does it at start
#      (src/platform/windows/audio.cpp, install_steam_audio_drivers: DiInstallDriverW on
#      %CommonProgramFiles(x86)%\Steam\drivers\Windows10\x64\SteamStreamingSpeakers.inf), so the
#      endpoint exists from the first boot, before any stream, and the build can check it.
# Sunshine plays games into that sink while streaming (sunshine.conf, 07-sunshine.ps1); DCV plays
# whatever Windows plays on its default device: nothing here changes DCV's own audio settings.
$ErrorActionPreference = 'Stop'

foreach ($service in 'AudioEndpointBuilder', 'Audiosrv') {
  Set-Service -Name $service -StartupType Automatic
  Start-Service -Name $service
}

# Valve's installer (NSIS), silent with /S as Chocolatey's steam package runs it. It is not pinned
# by hash (Valve serves one bootstrapper that updates itself); its signature must be Valve's.
$url = $env:STEAM_SETUP_URL
if (-not $url) { throw 'STEAM_SETUP_URL is not set (packer -var steam_setup_url=...)' }
$setup = 'C:\ProgramData\LegendCloud\SteamSetup.exe'
Invoke-WebRequest -UseBasicParsing -Uri $url -OutFile $setup
$signature = Get-AuthenticodeSignature -FilePath $setup
if ($signature.Status -ne 'Valid' -or $signature.SignerCertificate.Subject -notmatch 'O=Valve') {
  throw "SteamSetup.exe is not signed by Valve: $($signature.Status), $($signature.SignerCertificate.Subject)"
}
$process = Start-Process -FilePath $setup -ArgumentList '/S' -Wait -PassThru
if ($process.ExitCode -ne 0) { throw "SteamSetup.exe /S exited with $($process.ExitCode)" }
Remove-Item $setup

$inf = "${env:CommonProgramFiles(x86)}\Steam\drivers\Windows10\x64\SteamStreamingSpeakers.inf"
if (-not (Test-Path $inf)) {
  # The bootstrapper may lay down the client (and its drivers) only when it first runs: let it
  # update itself, for at most 10 minutes, then close it.
  $steam = "${env:ProgramFiles(x86)}\Steam\steam.exe"
  if (-not (Test-Path $steam)) { throw "Steam is not installed at $steam" }
  Start-Process -FilePath $steam -ArgumentList '-silent'
  $deadline = (Get-Date).AddMinutes(10)
  while (-not (Test-Path $inf) -and (Get-Date) -lt $deadline) { Start-Sleep -Seconds 10 }
  Get-Process -Name 'steam', 'steamwebhelper', 'steamservice' -ErrorAction SilentlyContinue | Stop-Process -Force
  if (-not (Test-Path $inf)) { throw "Steam did not lay down $($inf): no Steam Streaming Speakers to install" }
}

# The same call Sunshine makes (newdev.dll's DiInstallDriverW, no parent window, no flags).
Add-Type -Namespace LegendCloud -Name NewDev -MemberDefinition @'
[DllImport("newdev.dll", CharSet = CharSet.Unicode, SetLastError = true)]
public static extern bool DiInstallDriverW(IntPtr hwndParent, string InfPath, uint Flags, out bool NeedReboot);
'@
$needReboot = $false
if (-not [LegendCloud.NewDev]::DiInstallDriverW([IntPtr]::Zero, $inf, 0, [ref]$needReboot)) {
  $code = [Runtime.InteropServices.Marshal]::GetLastWin32Error()
  throw "DiInstallDriverW($inf) failed with Windows error $code"
}

$deadline = (Get-Date).AddSeconds(60)
do {
  $endpoint = Get-PnpDevice -Class AudioEndpoint -PresentOnly -ErrorAction SilentlyContinue |
    Where-Object { $_.FriendlyName -like '*Steam Streaming Speakers*' -and $_.Status -eq 'OK' } |
    Select-Object -First 1
  if (-not $endpoint) { Start-Sleep -Seconds 3 }
} while (-not $endpoint -and (Get-Date) -lt $deadline)
if (-not $endpoint) { throw 'no Steam Streaming Speakers audio endpoint appeared after installing the driver' }
Write-Output "Windows Audio automatic and running; audio endpoint: $($endpoint.FriendlyName)$(if ($needReboot) { ' (a reboot completes it)' })"
