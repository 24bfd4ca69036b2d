# The machine's own health report (health-report.ps1), posted signed to our site: at every boot
# (retrying while the site does not know the machine's address yet) and every 5 minutes. SYSTEM
# runs it; only SYSTEM and Administrators can read the settings it signs with.
$ErrorActionPreference = 'Stop'
$script = 'C:\ProgramData\LegendCloud\health-report.ps1'
foreach ($file in $script, 'C:\ProgramData\LegendCloud\machine-setup.ps1') {
  if (-not (Test-Path $file)) { throw "$file is missing (the Packer file provisioner copies it)" }
}
$principal = New-ScheduledTaskPrincipal -UserId 'SYSTEM' -LogonType ServiceAccount -RunLevel Highest
$boot = New-ScheduledTaskAction -Execute 'powershell.exe' -Argument "-NoProfile -NonInteractive -ExecutionPolicy Bypass -File `"$script`" -Boot"
$settings = New-ScheduledTaskSettingsSet -MultipleInstances IgnoreNew -ExecutionTimeLimit (New-TimeSpan -Minutes 15) -StartWhenAvailable
Register-ScheduledTask -TaskName 'LegendCloud health report (boot)' -Action $boot -Trigger (New-ScheduledTaskTrigger -AtStartup) -Settings $settings -Principal $principal -Force | Out-Null

$every = New-ScheduledTaskAction -Execute 'powershell.exe' -Argument "-NoProfile -NonInteractive -ExecutionPolicy Bypass -File `"$script`""
$trigger = New-ScheduledTaskTrigger -AtStartup
$trigger.Delay = 'PT5M'
$trigger.Repetition = (New-ScheduledTaskTrigger -Once -At (Get-Date) -RepetitionInterval (New-TimeSpan -Minutes 5)).Repetition
$short = New-ScheduledTaskSettingsSet -MultipleInstances IgnoreNew -ExecutionTimeLimit (New-TimeSpan -Minutes 2) -StartWhenAvailable
Register-ScheduledTask -TaskName 'LegendCloud health report' -Action $every -Trigger $trigger -Settings $short -Principal $principal -Force | Out-Null
Write-Output 'Health report tasks registered (at boot, then every 5 minutes)'
