# Run as SYSTEM by the task "LegendCloud console hand-back" (scripts/12-console-handback-task.ps1)
# when a Remote Desktop session disconnects or logs off. A disconnected session keeps the desktop
# away from the console, where Sunshine and Amazon DCV capture it: Moonlight and the browser show
# a black screen (LizardByte/Sunshine#964). Sunshine's issue gives the fix: connect the session
# back to the console with tscon (https://learn.microsoft.com/windows-server/administration/windows-commands/tscon),
# which SYSTEM may do without the user's password. The console then shows that user's desktop,
# unlocked: this machine has no physical console, and DCV (a one-time token from our site) and
# Moonlight (a paired device) each authenticate their viewer.
$ErrorActionPreference = 'Stop'
$log = 'C:\ProgramData\LegendCloud\console-handback.log'
function Write-Log([string]$message) { Add-Content -Path $log -Value "$(Get-Date -Format o) $message" }

# Let the session settle: a Remote Desktop client taking over the console session also raises
# the disconnect event, and that session must then be left alone (it is Active, not Disc).
Start-Sleep -Seconds 2
$sessions = & "$env:SystemRoot\System32\query.exe" session 2>$null
$handedBack = 0
foreach ($line in $sessions) {
  # "query session" lines: SESSIONNAME USERNAME ID STATE; a disconnected session has no name.
  $match = [regex]::Match($line, '^\s*(?:\S+\s+)?(?<user>\S+)\s+(?<id>\d+)\s+Disc\b')
  if (-not $match.Success) { continue }
  $id = [int]$match.Groups['id'].Value
  # Session 0 holds services, never a desktop.
  if ($id -eq 0) { continue }
  & "$env:SystemRoot\System32\tscon.exe" $id /dest:console
  if ($LASTEXITCODE -eq 0) {
    $handedBack += 1
    Write-Log "session $id ($($match.Groups['user'].Value)) connected back to the console"
  } else {
    Write-Log "tscon $id /dest:console exited with $LASTEXITCODE"
  }
}
if ($handedBack -eq 0) { Write-Log 'no disconnected desktop session: nothing to hand back' }
