# Every boot, as SYSTEM (EC2Launch v2 runs it: the user data the worker writes at launch is one
# executeScript task calling this file). Extends C: to the whole disk, reads this machine's own
# settings from the instance metadata, keeps them where only SYSTEM and Administrators can read
# them, gives Sunshine's web API this machine's credentials (and checks Sunshine stored them),
# points Sunshine at the virtual display, and sends a first health report. The settings are the
# line `# legend-machine: {json}` of the user data (core/domain/machineSetup.ts writes it):
# v, healthUrl, healthSecret, sunshineUsername, sunshinePassword.
$ErrorActionPreference = 'Stop'
$dir = 'C:\ProgramData\LegendCloud'
$log = Join-Path $dir 'machine-setup.log'
function Write-Log([string]$message) { Add-Content -Path $log -Value "$(Get-Date -Format o) $message" }

# The build's WinRM listener and firewall rule (scripts/00-winrm-bootstrap.ps1) are Packer's only:
# gone from the first boot on. Removed here, not in the build, because the build's last steps run
# over that very listener.
Get-ChildItem WSMan:\localhost\Listener | Where-Object { $_.Keys -contains 'Transport=HTTPS' } | Remove-Item -Recurse -Force
Get-NetFirewallRule -Name 'packer-winrm-https' -ErrorAction SilentlyContinue | Remove-NetFirewallRule
Get-ChildItem Cert:\LocalMachine\My | Where-Object { $_.Subject -eq 'CN=packer' } | Remove-Item

# C: takes the whole disk at every boot. EC2Launch's extendRootPartition runs once (its task
# reference: "Frequency — once"), so a disk grown later by a plan change (ModifyVolume while the
# machine is stopped) would stay unallocated. AWS's "Extend the file system after resizing a
# volume" does the same with Get-PartitionSupportedSize and Resize-Partition (Microsoft's Storage
# module); Update-HostStorageCache makes Windows see the new size first.
Update-HostStorageCache
$partition = Get-Partition -DriveLetter C
$supported = Get-PartitionSupportedSize -DriveLetter C
$gib = 1073741824
if ([double]$supported.SizeMax - [double]$partition.Size -gt $gib / 1024) {
  Resize-Partition -DriveLetter C -Size $supported.SizeMax
  Write-Log "C: extended from $([math]::Round($partition.Size / $gib, 1)) GB to $([math]::Round($supported.SizeMax / $gib, 1)) GB"
}

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

# Sunshine's web API: `sunshine.exe --creds` stores the username, a salt and a hash of the
# password in its state file. It exits 0 whatever happened (src/entry_handler.cpp, args::creds),
# so the state file is read back instead: the username must be ours and the hash the one Sunshine
# computes for our password (src/httpcommon.cpp save_user_creds: util::hex(crypto::hash(password
# + salt)), which is the SHA-256 of password + salt in upper-case hex, bytes in reverse order:
# util::hex in src/utility.h writes the last byte first).
$sunshine = 'C:\Program Files\Sunshine'
$state = Join-Path $sunshine 'config\sunshine_state.json'
Push-Location $sunshine
try {
  & "$sunshine\sunshine.exe" --creds $settings.sunshineUsername $settings.sunshinePassword | Out-Null
} finally {
  Pop-Location
}
if (-not (Test-Path $state)) { throw "sunshine --creds wrote no $state" }
$stored = Get-Content -Raw -Path $state | ConvertFrom-Json
if ($stored.username -ne $settings.sunshineUsername -or -not $stored.salt -or -not $stored.password) {
  throw "Sunshine's state file does not hold this machine's username and a salted password ($state)"
}
$digest = [System.Security.Cryptography.SHA256]::Create().ComputeHash(
  [System.Text.Encoding]::UTF8.GetBytes($settings.sunshinePassword + $stored.salt))
[array]::Reverse($digest)
$expected = -join ($digest | ForEach-Object { $_.ToString('X2') })
if ($stored.password -ne $expected) { throw "Sunshine's state file holds another password than this machine's ($state)" }

# Off in the image (so no certificate is shared between machines); on from this machine's first
# boot, where it makes its own certificate, whose fingerprint the health report carries.
Set-Service -Name SunshineService -StartupType Automatic
Restart-Service -Name SunshineService
Write-Log 'Sunshine web API credentials set for this machine and read back from its state file'

# Sunshine streams the display named by output_name, a device id it derives per machine from the
# monitor's EDID and Windows' instance id (LizardByte/libdisplaydevice, WinApiLayer::getDeviceId),
# so it is looked up here rather than baked into the image: Sunshine lists the devices it sees in
# its log at start ("Currently available display devices:", then JSON with device_id and
# friendly_name; docs/configuration.md, output_name). The virtual display's monitor calls itself
# "VDD by MTT" (its EDID, Virtual Display Driver's Driver.cpp).
$sunshineLog = Join-Path $sunshine 'config\sunshine.log'
$config = Join-Path $sunshine 'config\sunshine.conf'
$deviceId = $null
$deadline = (Get-Date).AddSeconds(60)
while (-not $deviceId -and (Get-Date) -lt $deadline) {
  Start-Sleep -Seconds 3
  if (-not (Test-Path $sunshineLog)) { continue }
  $text = Get-Content -Raw -Path $sunshineLog
  $found = [regex]::Match($text, '"device_id":\s*"(\{[0-9a-fA-F-]+\})",\s*"display_name":\s*"[^"]*",\s*"friendly_name":\s*"VDD by MTT"')
  if ($found.Success) { $deviceId = $found.Groups[1].Value }
}
if (-not $deviceId) {
  # Sunshine then streams its default display: the health report says whether that is the virtual one.
  Write-Log 'the virtual display is not among the display devices Sunshine logged: output_name left as it was'
} else {
  $lines = @(Get-Content -Path $config | Where-Object { $_ -notmatch '^\s*output_name\s*=' })
  if ((Get-Content -Path $config) -notcontains "output_name = $deviceId") {
    Set-Content -Path $config -Encoding ASCII -Value ($lines + "output_name = $deviceId")
    Restart-Service -Name SunshineService
    Write-Log "Sunshine streams the virtual display ($deviceId)"
  }
}

# The first report of this boot (the boot task keeps trying until the site knows the address).
Start-ScheduledTask -TaskName 'LegendCloud health report (boot)'
