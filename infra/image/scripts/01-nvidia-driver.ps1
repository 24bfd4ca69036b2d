# The NVIDIA driver AWS documents for G4dn and G5 Windows instances, from AWS's own buckets
# (reading them needs s3:GetObject on the build instance's role, at build time only):
# https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/install-nvidia-driver.html
#   gaming: s3://nvidia-gaming/windows/latest/ (its licence: 01-nvidia-licence.ps1, after the reboot)
#   grid:   s3://ec2-windows-nvidia-drivers/latest/ (RTX Virtual Workstation, licensed by EC2).
$ErrorActionPreference = 'Stop'
$driver = $env:NVIDIA_DRIVER
$work = 'C:\ProgramData\LegendCloud\nvidia'
New-Item -ItemType Directory -Force -Path $work | Out-Null

if ($driver -eq 'gaming') {
  $bucket = 'nvidia-gaming'; $prefix = 'windows/latest'; $bucketRegion = 'us-east-1'
} else {
  $bucket = 'ec2-windows-nvidia-drivers'; $prefix = 'latest'; $bucketRegion = 'us-east-1'
}

# AWS Tools for PowerShell ship with AWS's Windows AMIs.
$objects = Get-S3Object -BucketName $bucket -KeyPrefix $prefix -Region $bucketRegion
foreach ($object in $objects) {
  if ($object.Size -gt 0) {
    $local = Join-Path $work ($object.Key -replace '/', '\')
    Copy-S3Object -BucketName $bucket -Key $object.Key -LocalFile $local -Region $bucketRegion | Out-Null
  }
}

$archive = Get-ChildItem -Path $work -Recurse -Include *.zip | Select-Object -First 1
if ($archive) { Expand-Archive -Path $archive.FullName -DestinationPath $work -Force }
$installer = Get-ChildItem -Path $work -Recurse -Include *.exe |
  Where-Object { $_.Name -match 'server2022|win10|win11|_Win' -or $_.Name -match 'grid|gaming' } |
  Select-Object -First 1
if (-not $installer) { throw "no NVIDIA installer found under s3://$bucket/$prefix" }
$process = Start-Process -FilePath $installer.FullName -ArgumentList '-s', '-noreboot', '-clean' -Wait -PassThru
if ($process.ExitCode -ne 0) { throw "NVIDIA installer exited with $($process.ExitCode)" }

Remove-Item -Recurse -Force $work
Write-Output "NVIDIA $driver driver installed from s3://$bucket/$prefix"
