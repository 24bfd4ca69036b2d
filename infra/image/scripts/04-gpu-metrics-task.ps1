# GPU utilisation on Windows: the agent's nvidia_gpu section is Linux-only and Windows' "GPU
# Engine" counters are per process and engine, so a scheduled task reads nvidia-smi every
# minute and calls PutMetricData (gpu-metrics.ps1) as SYSTEM, with the instance profile's role.
$ErrorActionPreference = 'Stop'
$script = 'C:\ProgramData\LegendCloud\gpu-metrics.ps1'
if (-not (Test-Path $script)) { throw "$script is missing (the Packer file provisioner copies it)" }
$action = New-ScheduledTaskAction -Execute 'powershell.exe' -Argument "-NoProfile -NonInteractive -ExecutionPolicy Bypass -File `"$script`""
$trigger = New-ScheduledTaskTrigger -AtStartup
$trigger.Repetition = (New-ScheduledTaskTrigger -Once -At (Get-Date) -RepetitionInterval (New-TimeSpan -Minutes 1)).Repetition
$settings = New-ScheduledTaskSettingsSet -MultipleInstances IgnoreNew -ExecutionTimeLimit (New-TimeSpan -Seconds 50) -StartWhenAvailable
$principal = New-ScheduledTaskPrincipal -UserId 'SYSTEM' -LogonType ServiceAccount -RunLevel Highest
Register-ScheduledTask -TaskName 'LegendCloud GPU metrics' -Action $action -Trigger $trigger -Settings $settings -Principal $principal -Force | Out-Null
Write-Output 'GPU metrics task registered (every minute)'
