# Gamepads: an Xbox controller in Moonlight appears in Windows as an Xbox 360 pad (XInput).
#   - Sunshine creates it through ViGEmBus. Sunshine's docs for the release we pin name the Virtual
#     HID Driver first, which needs a paid licence per machine, and ViGEmBus as the fallback for
#     Xbox 360 and DualShock 4 pads (docs/getting_started.md, "Windows"; src/confighttp.cpp
#     VIGEMBUS_MINIMUM_VERSION 1.17.0.0). ViGEmBus 1.17.333 is the last setup that installs on
#     Windows Server (nefarius/ViGEmBus#153: 1.21.442's setup refuses every Server edition).
#   - Windows Server has no Xbox 360 controller driver (XUSB), without which ViGEmBus' pads do not
#     work (nefarius/ViGEmBus#85). Microsoft's own package from the Windows Update catalogue is
#     added to the driver store, as parsec-cloud/Parsec-Cloud-Preparation-Tool (PostInstall.ps1,
#     Server2019Controller) does for Server 2019; its catalogue must carry Microsoft's signature.
# Both silent. The build checks the bus device and the driver (90-verify-image.ps1).
$ErrorActionPreference = 'Stop'
$work = 'C:\ProgramData\LegendCloud\gamepad'
New-Item -ItemType Directory -Force -Path $work | Out-Null

# Windows' Xbox 360 controller driver.
if (-not $env:XBOX360_DRIVER_CAB_URL) { throw 'XBOX360_DRIVER_CAB_URL is not set (packer variables)' }
Invoke-WebRequest -UseBasicParsing -Uri $env:XBOX360_DRIVER_CAB_URL -OutFile "$work\xbox360.cab"
New-Item -ItemType Directory -Force -Path "$work\xbox360" | Out-Null
& "$env:SystemRoot\System32\expand.exe" "$work\xbox360.cab" '-F:*' "$work\xbox360" | Out-Null
if ($LASTEXITCODE -ne 0) { throw "expand.exe exited with $LASTEXITCODE on the Xbox 360 driver package" }
$inf = Get-ChildItem -Path "$work\xbox360" -Recurse -Filter 'xusb21.inf' | Select-Object -First 1
if (-not $inf) { throw 'xusb21.inf is not in the Xbox 360 driver package' }
$catalogue = Get-ChildItem -Path $inf.DirectoryName -Filter '*.cat' | Select-Object -First 1
$signature = if ($catalogue) { Get-AuthenticodeSignature -FilePath $catalogue.FullName } else { $null }
if (-not $signature -or $signature.Status -ne 'Valid' -or $signature.SignerCertificate.Subject -notmatch 'O=Microsoft Corporation') {
  throw "the Xbox 360 driver's catalogue is not signed by Microsoft: $($signature.Status), $($signature.SignerCertificate.Subject)"
}
# Into the driver store, installed on any matching device (there is none until a pad is created).
& "$env:SystemRoot\System32\pnputil.exe" /add-driver $inf.FullName /install
# 0: added; 259 (ERROR_NO_MORE_ITEMS): added, no device to install it on yet; 3010: reboot needed.
if ($LASTEXITCODE -notin 0, 259, 3010) { throw "pnputil /add-driver xusb21.inf exited with $LASTEXITCODE" }

# ViGEmBus.
if (-not $env:VIGEMBUS_MSI_URL) { throw 'VIGEMBUS_MSI_URL is not set (packer variables)' }
$msi = "$work\ViGEmBusSetup_x64.msi"
Invoke-WebRequest -UseBasicParsing -Uri $env:VIGEMBUS_MSI_URL -OutFile $msi
$signature = Get-AuthenticodeSignature -FilePath $msi
if ($signature.Status -ne 'Valid' -or $signature.SignerCertificate.Subject -notmatch 'Nefarius|Wohlfeil') {
  throw "the ViGEmBus setup is not signed by its author: $($signature.Status), $($signature.SignerCertificate.Subject)"
}
# Elevated and quiet (nefarius/ViGEmBus#108: /qn installs only elevated; Packer runs as Administrator).
$process = Start-Process msiexec.exe -ArgumentList '/i', $msi, '/qn', '/norestart' -Wait -PassThru
if ($process.ExitCode -ne 0 -and $process.ExitCode -ne 3010) { throw "ViGEmBus setup exited with $($process.ExitCode)" }

$deadline = (Get-Date).AddSeconds(60)
do {
  $bus = Get-PnpDevice -PresentOnly -ErrorAction SilentlyContinue |
    Where-Object { $_.HardwareID -match '^(Root|Nefarius)\\ViGEmBus' } | Select-Object -First 1
  if (-not $bus) { Start-Sleep -Seconds 3 }
} while (-not $bus -and (Get-Date) -lt $deadline)
if (-not $bus) { throw 'the ViGEmBus device did not appear after its setup' }
Remove-Item -Recurse -Force $work
Write-Output "Gamepads: $($bus.FriendlyName) ($($bus.Status)); Windows' Xbox 360 (XUSB) driver in the driver store"
