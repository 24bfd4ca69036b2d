# The NVIDIA driver's licence, after the reboot that lets nvidia-smi answer, as AWS's "Install
# NVIDIA drivers on Windows instances" page says (Option 4, gaming drivers):
# https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/install-nvidia-driver.html#nvidia-gaming-driver
#   - the DWord vGamingMarketplace = 2 under HKLM\SYSTEM\CurrentControlSet\Services\nvlddmkm\Global
#     for drivers 527.27 and later (earlier ones read HKLM\SOFTWARE\NVIDIA Corporation\Global);
#   - the certificate file AWS's table gives for the installed driver's version, saved as
#     GridSwCert.txt in Public Documents.
# The GRID driver is licensed by EC2 itself: only its licence page is hidden. Whether the driver
# reports "Licensed" is checked at the end of the build (90-verify-image.ps1) and on every machine
# (health-report.ps1).
$ErrorActionPreference = 'Stop'

function Find-NvidiaSmi {
  foreach ($path in "$env:SystemRoot\System32\nvidia-smi.exe", "$env:ProgramFiles\NVIDIA Corporation\NVSMI\nvidia-smi.exe") {
    if (Test-Path $path) { return $path }
  }
  # DCH drivers keep it in the driver store (AWS's page looks for it there).
  $found = Get-ChildItem -Path "$env:SystemRoot\System32\DriverStore\FileRepository" -Filter 'nvidia-smi.exe' -Recurse -ErrorAction SilentlyContinue |
    Select-Object -First 1
  if ($found) { return $found.FullName }
  throw 'nvidia-smi.exe was not found: the NVIDIA driver did not install'
}

if ($env:NVIDIA_DRIVER -ne 'gaming') {
  # EC2 licenses the GRID driver on these types; hide the licence page customers cannot use (AWS's page, Option 3).
  $grid = 'HKLM:\SOFTWARE\NVIDIA Corporation\Global\GridLicensing'
  if (-not (Test-Path $grid)) { New-Item -Path $grid -Force | Out-Null }
  New-ItemProperty -Path $grid -Name 'NvCplDisableManageLicensePage' -PropertyType DWord -Value 1 -Force | Out-Null
  Write-Output 'GRID driver: licensed by EC2; licence page hidden'
  exit 0
}

$smi = Find-NvidiaSmi
$reported = (& $smi '--query-gpu=driver_version' '--format=csv,noheader' | Select-Object -First 1)
if ($LASTEXITCODE -ne 0 -or -not $reported) { throw "nvidia-smi did not report a driver version (exit $LASTEXITCODE)" }
$version = [version]$reported.Trim()

# AWS's table, newest first: the first row whose range holds the installed version. A version
# between two rows is one the page does not name: the build stops rather than guess.
$certificates = @(
  @{ From = '591.59'; To = $null; File = 'GridSwCert_2026_03_02.cert' },
  @{ From = '576.80'; To = '581.80'; File = 'GridSwCertWindows_2025_07_01.cert' },
  @{ From = '460.39'; To = '576.72'; File = 'GridSwCertWindows_2024_02_22.cert' },
  @{ From = '445.87'; To = '445.87'; File = 'GridSwCert-Windows_2020_04.cert' },
  @{ From = '0.0'; To = '445.86'; File = 'GridSwCert-Windows_2019_09.cert' }
)
$row = $certificates | Where-Object {
  $version -ge [version]$_.From -and (-not $_.To -or $version -le [version]$_.To)
} | Select-Object -First 1
if (-not $row) {
  throw "NVIDIA gaming driver $version is in no range of AWS's certificate table (install-nvidia-driver.html): read the page and add its row to 01-nvidia-licence.ps1"
}

# Drivers from 527.27 read the value under the driver's own service key. Created only when
# missing: New-Item -Force on an existing registry key would replace it, and the driver keeps
# its own settings there.
$key = if ($version -ge [version]'527.27') { 'HKLM:\SYSTEM\CurrentControlSet\Services\nvlddmkm\Global' } else { 'HKLM:\SOFTWARE\NVIDIA Corporation\Global' }
if (-not (Test-Path $key)) { New-Item -Path $key -Force | Out-Null }
New-ItemProperty -Path $key -Name 'vGamingMarketplace' -PropertyType DWord -Value 2 -Force | Out-Null

$certificate = "$env:PUBLIC\Documents\GridSwCert.txt"
Invoke-WebRequest -UseBasicParsing -Uri "https://nvidia-gaming.s3.amazonaws.com/GridSwCert-Archive/$($row.File)" -OutFile $certificate
if ((Get-Item $certificate).Length -eq 0) { throw "the certificate $($row.File) downloaded empty" }
Write-Output "NVIDIA gaming driver ${version}: vGamingMarketplace=2 under $key; certificate $($row.File) as $certificate (licence takes effect after the next reboot)"
