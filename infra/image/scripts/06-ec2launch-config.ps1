# EC2Launch v2's settings for every launch from this image (ec2launch-agent-config.yml): a random
# Administrator password encrypted to the launch's key pair (what GetPasswordData returns and the
# worker decrypts), the DNS suffix, activation, the wallpaper and SSM. Then `ec2launch validate`
# (EC2Launch v2's CLI reference: it validates C:\ProgramData\Amazon\EC2Launch\config\agent-config.yml):
# a setting EC2Launch cannot read (a wrong input name, as `suffix:` for `suffixes:` was) would make
# its stage fail at first boot, and setAdminAccount, after it, would never run.
$ErrorActionPreference = 'Stop'
$config = 'C:\ProgramData\Amazon\EC2Launch\config\agent-config.yml'
Copy-Item -Path 'C:\ProgramData\LegendCloud\ec2launch-agent-config.yml' -Destination $config -Force
Remove-Item 'C:\ProgramData\LegendCloud\ec2launch-agent-config.yml'
# Windows PowerShell turns a native command's stderr into errors, which 'Stop' would throw on
# before the exit code says what happened: read both, then judge by the exit code.
$ErrorActionPreference = 'Continue'
$output = & 'C:\Program Files\Amazon\EC2Launch\EC2Launch.exe' validate 2>&1 | Out-String
$validated = $LASTEXITCODE
$ErrorActionPreference = 'Stop'
if ($validated -ne 0) { throw "ec2launch validate refused $config (exit $validated): $output" }
Write-Output "EC2Launch v2 configuration in place and valid: $($output.Trim())"
