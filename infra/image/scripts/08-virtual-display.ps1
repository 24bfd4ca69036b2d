# A virtual display (an IddCx driver, "Virtual Display Driver" by VirtualDrivers), so the GPU
# always has a monitor: a cloud machine with none captures nothing or falls back to 1366x768.
# Its modes: every size from 1280x720 to 3840x2160 that a Moonlight client asks for, at 60, 90,
# 120 and 144 Hz (core/domain/imageChecks.ts STREAM_RESOLUTIONS and STREAM_REFRESH_RATES).
# Installed with NefCon (nefarius' device installer), both pinned by URL (packer variables), after
# the Microsoft Visual C++ runtime the driver needs (its README: "Before using the Virtual Display
# Driver, ensure ... Microsoft Visual C++ Redistributable"; without it: vcruntime140.dll not found).
$ErrorActionPreference = 'Stop'
foreach ($name in 'VC_REDIST_URL', 'VDD_ZIP_URL', 'NEFCON_ZIP_URL') {
  if (-not (Get-Item "env:$name" -ErrorAction SilentlyContinue)) { throw "$name is not set (packer variables)" }
}

# The VC++ 2015-2022 runtime first, silently (Microsoft's redistributable: /install /quiet /norestart).
$redist = 'C:\ProgramData\LegendCloud\vc_redist.x64.exe'
Invoke-WebRequest -UseBasicParsing -Uri $env:VC_REDIST_URL -OutFile $redist
$signature = Get-AuthenticodeSignature -FilePath $redist
if ($signature.Status -ne 'Valid' -or $signature.SignerCertificate.Subject -notmatch 'O=Microsoft Corporation') {
  throw "vc_redist.x64.exe is not signed by Microsoft: $($signature.Status), $($signature.SignerCertificate.Subject)"
}
$process = Start-Process -FilePath $redist -ArgumentList '/install', '/quiet', '/norestart' -Wait -PassThru
# 0: installed; 3010: reboot needed; 1638: this or a newer version is already installed.
if ($process.ExitCode -notin 0, 3010, 1638) { throw "the VC++ runtime installer exited with $($process.ExitCode)" }
Remove-Item $redist

$work = 'C:\ProgramData\LegendCloud\vdd'
New-Item -ItemType Directory -Force -Path $work | Out-Null
Invoke-WebRequest -UseBasicParsing -Uri $env:NEFCON_ZIP_URL -OutFile "$work\nefcon.zip"
Expand-Archive -Path "$work\nefcon.zip" -DestinationPath "$work\nefcon" -Force
Invoke-WebRequest -UseBasicParsing -Uri $env:VDD_ZIP_URL -OutFile "$work\vdd.zip"
Expand-Archive -Path "$work\vdd.zip" -DestinationPath "$work\driver" -Force

# The modes, where the driver reads them (C:\VirtualDisplayDriver\vdd_settings.xml).
$settingsDir = 'C:\VirtualDisplayDriver'
New-Item -ItemType Directory -Force -Path $settingsDir | Out-Null
$resolutions = @(@(1280, 720), @(1280, 800), @(1600, 900), @(1920, 1080), @(1920, 1200), @(2560, 1440), @(2560, 1600), @(3840, 2160))
$modes = $resolutions | ForEach-Object {
  "    <resolution><width>$($_[0])</width><height>$($_[1])</height><refresh_rate>60</refresh_rate></resolution>"
}
Set-Content -Path "$settingsDir\vdd_settings.xml" -Encoding UTF8 -Value @"
<?xml version='1.0' encoding='utf-8'?>
<vdd_settings>
  <monitors><count>1</count></monitors>
  <gpu><friendlyname>default</friendlyname></gpu>
  <global>
    <g_refresh_rate>60</g_refresh_rate>
    <g_refresh_rate>90</g_refresh_rate>
    <g_refresh_rate>120</g_refresh_rate>
    <g_refresh_rate>144</g_refresh_rate>
  </global>
  <resolutions>
$($modes -join "`r`n")
  </resolutions>
</vdd_settings>
"@

# Trust the driver's signer (its catalogue carries the certificates), then install the device, as
# the driver's own Community Scripts/silent-install.ps1 does.
$catalogue = Get-ChildItem -Path "$work\driver" -Recurse -Filter '*.cat' | Select-Object -First 1
if (-not $catalogue) { throw 'no driver catalogue (.cat) in the Virtual Display Driver archive' }
$signers = New-Object System.Security.Cryptography.X509Certificates.X509Certificate2Collection
$signers.Import([System.IO.File]::ReadAllBytes($catalogue.FullName))
$store = New-Object System.Security.Cryptography.X509Certificates.X509Store('TrustedPublisher', 'LocalMachine')
$store.Open('ReadWrite')
foreach ($signer in $signers) { $store.Add($signer) }
$store.Close()
$inf = Get-ChildItem -Path "$work\driver" -Recurse -Filter 'MttVDD.inf' | Select-Object -First 1
if (-not $inf) { throw 'MttVDD.inf not found in the Virtual Display Driver archive' }
$nefcon = Get-ChildItem -Path "$work\nefcon" -Recurse -Filter 'nefconw.exe' | Where-Object { $_.FullName -match 'x64' } | Select-Object -First 1
$process = Start-Process -FilePath $nefcon.FullName -ArgumentList 'install', "`"$($inf.FullName)`"", 'Root\MttVDD' -Wait -PassThru
if ($process.ExitCode -ne 0) { throw "nefcon install exited with $($process.ExitCode)" }
Start-Sleep -Seconds 10
$device = Get-PnpDevice -Class Display -ErrorAction SilentlyContinue | Where-Object { $_.HardwareID -contains 'Root\MttVDD' }
if (-not $device) { throw 'the virtual display did not appear among display adapters' }
Remove-Item -Recurse -Force $work
Write-Output "Virtual display installed: $($device.FriendlyName) ($($device.Status)); modes 1280x720 to 3840x2160 at 60-144 Hz"
