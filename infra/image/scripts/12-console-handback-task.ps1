# After Remote Desktop, the session goes back to the console (console-handback.ps1 says why), so
# Moonlight and DCV work straight after. A scheduled task as SYSTEM, started by the Terminal
# Services Local Session Manager's events: 24 (session disconnected) and 23 (session logoff), in
# Microsoft-Windows-TerminalServices-LocalSessionManager/Operational. Event triggers take a
# subscription query, set through the Task Scheduler's CIM class (MSFT_TaskEventTrigger) as
# New-ScheduledTaskTrigger has no event trigger of its own.
$ErrorActionPreference = 'Stop'
$script = 'C:\ProgramData\LegendCloud\console-handback.ps1'
if (-not (Test-Path $script)) { throw "$script is missing (the Packer file provisioner copies it)" }
$channel = 'Microsoft-Windows-TerminalServices-LocalSessionManager/Operational'
$class = Get-CimClass -ClassName MSFT_TaskEventTrigger -Namespace 'Root/Microsoft/Windows/TaskScheduler'
$triggers = foreach ($eventId in 24, 23) {
  $trigger = New-CimInstance -CimClass $class -ClientOnly
  $trigger.Enabled = $true
  $trigger.Subscription = "<QueryList><Query Id=`"0`" Path=`"$channel`"><Select Path=`"$channel`">*[System[(EventID=$eventId)]]</Select></Query></QueryList>"
  $trigger
}
$action = New-ScheduledTaskAction -Execute 'powershell.exe' -Argument "-NoProfile -NonInteractive -ExecutionPolicy Bypass -File `"$script`""
$principal = New-ScheduledTaskPrincipal -UserId 'SYSTEM' -LogonType ServiceAccount -RunLevel Highest
$settings = New-ScheduledTaskSettingsSet -MultipleInstances Queue -ExecutionTimeLimit (New-TimeSpan -Minutes 2)
Register-ScheduledTask -TaskName 'LegendCloud console hand-back' -Action $action -Trigger $triggers -Settings $settings -Principal $principal -Force | Out-Null
Write-Output 'Console hand-back task registered (Remote Desktop disconnect and logoff)'
