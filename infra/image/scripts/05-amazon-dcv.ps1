# Amazon DCV server (no licence fee on EC2; it checks the dcv-license.<region> S3 bucket, which
# the instance profile may read). Sessions are authenticated by our site: DCV sends each
# connection's token to <PUBLIC_URL>/api/dcv/auth. Port 8443 (TCP and QUIC/UDP).
$ErrorActionPreference = 'Stop'
$publicUrl = $env:PUBLIC_URL
if (-not $publicUrl) { throw 'PUBLIC_URL is not set (packer -var public_url=...)' }
$msi = 'C:\ProgramData\LegendCloud\nice-dcv-server.msi'
Invoke-WebRequest -UseBasicParsing -Uri 'https://d1uj6qtbmh3dt5.cloudfront.net/nice-dcv-server-x64-Release.msi' -OutFile $msi
$process = Start-Process msiexec.exe -ArgumentList '/i', $msi, 'ADDLOCAL=ALL', '/quiet', '/norestart' -Wait -PassThru
if ($process.ExitCode -ne 0 -and $process.ExitCode -ne 3010) { throw "DCV installer exited with $($process.ExitCode)" }
Remove-Item $msi
$security = 'HKEY_USERS\S-1-5-18\Software\GSettings\com\nicesoftware\dcv\security'
New-Item -Path "Registry::$security" -Force | Out-Null
New-ItemProperty -Path "Registry::$security" -Name 'auth-token-verifier' -PropertyType String -Value "$($publicUrl.TrimEnd('/'))/api/dcv/auth" -Force | Out-Null
# The console session (the one Windows DCV runs, `#console` in the link) starts with the service
# and belongs to Administrator: the name our verifier answers for a valid token, and the account
# whose password the dashboard hands out.
$console = 'HKEY_USERS\S-1-5-18\Software\GSettings\com\nicesoftware\dcv\session-management'
New-Item -Path "Registry::$console" -Force | Out-Null
New-ItemProperty -Path "Registry::$console" -Name 'create-session' -PropertyType DWord -Value 1 -Force | Out-Null
New-Item -Path "Registry::$console\automatic-console-session" -Force | Out-Null
New-ItemProperty -Path "Registry::$console\automatic-console-session" -Name 'owner' -PropertyType String -Value 'Administrator' -Force | Out-Null
# QUIC (UDP 8443) for DCV's native clients, which the dashboard's .dcv file opens (on by default
# since DCV 2024.0; set so a change of default does not silently slow games down).
$connectivity = 'HKEY_USERS\S-1-5-18\Software\GSettings\com\nicesoftware\dcv\connectivity'
New-Item -Path "Registry::$connectivity" -Force | Out-Null
New-ItemProperty -Path "Registry::$connectivity" -Name 'enable-quic-frontend' -PropertyType DWord -Value 1 -Force | Out-Null
New-NetFirewallRule -Name 'legend-dcv-tcp' -DisplayName 'Amazon DCV (TCP 8443)' -Protocol TCP -LocalPort 8443 -Action Allow | Out-Null
New-NetFirewallRule -Name 'legend-dcv-udp' -DisplayName 'Amazon DCV (QUIC 8443)' -Protocol UDP -LocalPort 8443 -Action Allow | Out-Null
Set-Service -Name dcvserver -StartupType Automatic
Write-Output "Amazon DCV installed; tokens verified at $publicUrl/api/dcv/auth"
