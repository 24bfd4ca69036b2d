# Every boot, as SYSTEM (EC2Launch v2 runs it: the user data the worker writes at launch is one
# executeScript task calling this file). Reads this machine's own settings from the instance
# metadata, keeps them where only SYSTEM and Administrators can read them, gives Sunshine's web
# API this machine's credentials, and sends a first health report. The settings are the line
# `# legend-machine: {json}` of the user data (core/domain/machineSetup.ts writes it):
# v, healthUrl, healthSecret, sunshineUsername, sunshinePassword.
$ErrorActionPreference = 'Stop'
$dir = 'C:\ProgramData\LegendCloud'
$log = Join-Path $dir 'machine-setup.log'
function Write-Log([string]$message) { Add-Content -Path $log -Value "$(Get-Date -Format o) $message" }

# IMDSv2 (instances launch with HttpTokens=required).
$token = Invoke-RestMethod -Method Put -Uri 'http://169.254.169.254/latest/api/token' -Headers @{ 'X-aws-ec2-metadata-token-ttl-seconds' = '300' } -TimeoutSec 10
$userData = Invoke-WebRequest -UseBasicParsing -Uri 'http://169.254.169.254/latest/user-data' -Headers @{ 'X-aws-ec2-metadata-token' = $token } -TimeoutSec 10
$marker = '# legend-machine: '
$line = ([System.Text.Encoding]::UTF8.GetString($userData.RawContentStream.ToArray()) -split "`n") |
  Where-Object { $_.StartsWith($marker) } | Select-Object -First 1
if (-not $line) { Write-Log 'no legend-machine settings in the user data: nothing to set up'; exit 0 }
$json = $line.Substring($marker.Length).Trim()
$settings = $json | ConvertFrom-Json
if ($settings.v -ne 1) { throw "unknown machine settings version $($settings.v)" }

# The customer is Administrator here: the secrets are theirs to see, nobody else's.
$file = Join-Path $dir 'machine.json'
Set-Content -Path $file -Value $json -Encoding UTF8
$acl = New-Object System.Security.AccessControl.FileSecurity
$acl.SetAccessRuleProtection($true, $false)
foreach ($who in 'NT AUTHORITY\SYSTEM', 'BUILTIN\Administrators') {
  $acl.AddAccessRule((New-Object System.Security.AccessControl.FileSystemAccessRule($who, 'FullControl', 'Allow')))
}
Set-Acl -Path $file -AclObject $acl

# Sunshine's web API: `sunshine.exe --creds` stores the username and a salted hash of the password.
$sunshine = 'C:\Program Files\Sunshine'
Push-Location $sunshine
try {
  & "$sunshine\sunshine.exe" --creds $settings.sunshineUsername $settings.sunshinePassword | Out-Null
  if ($LASTEXITCODE -ne 0) { throw "sunshine --creds exited with $LASTEXITCODE" }
} finally {
  Pop-Location
}
# Off in the image (so no certificate is shared between machines); on from this machine's first
# boot, where it makes its own certificate, whose fingerprint the health report carries.
Set-Service -Name SunshineService -StartupType Automatic
Restart-Service -Name SunshineService
Write-Log 'Sunshine web API credentials set for this machine'

# The first report of this boot (the boot task keeps trying until the site knows the address).
Start-ScheduledTask -TaskName 'LegendCloud health report (boot)'
