# A virtual display (an IddCx driver, "Virtual Display Driver" by VirtualDrivers), so the GPU
# always has a monitor: a cloud machine with none captures nothing or falls back to 1366x768.
# Its modes: 1080p, 1440p and 4K at 60, 90, 120 and 144 Hz (what the driver offers of them).
# Installed with NefCon (nefarius' device installer), both pinned by URL (packer variables).
$ErrorActionPreference = 'Stop'
foreach ($name in 'VDD_ZIP_URL', 'NEFCON_ZIP_URL') {
  if (-not (Get-Item "env:$name" -ErrorAction SilentlyContinue)) { throw "$name is not set (packer variables)" }
}
$work = 'C:\ProgramData\LegendCloud\vdd'
New-Item -ItemType Directory -Force -Path $work | Out-Null
Invoke-WebRequest -UseBasicParsing -Uri $env:NEFCON_ZIP_URL -OutFile "$work\nefcon.zip"
Expand-Archive -Path "$work\nefcon.zip" -DestinationPath "$work\nefcon" -Force
Invoke-WebRequest -UseBasicParsing -Uri $env:VDD_ZIP_URL -OutFile "$work\vdd.zip"
Expand-Archive -Path "$work\vdd.zip" -DestinationPath "$work\driver" -Force

# The modes, where the driver reads them (C:\VirtualDisplayDriver\vdd_settings.xml).
$settingsDir = 'C:\VirtualDisplayDriver'
New-Item -ItemType Directory -Force -Path $settingsDir | Out-Null
$modes = @(@(1920, 1080), @(2560, 1440), @(3840, 2160)) | ForEach-Object {
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

# Trust the driver's signer (its catalogue carries the certificates), then install the device.
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
Write-Output "Virtual display installed: $($device.FriendlyName) ($($device.Status)); modes 1080p/1440p/4K at 60-144 Hz"
