<powershell>
# Build-time only: WinRM over HTTPS with a self-signed certificate so Packer can provision.
# machine-setup.ps1 removes the listener, its certificate and firewall rule at every boot of a machine.
$ErrorActionPreference = 'Stop'
Set-ExecutionPolicy -ExecutionPolicy RemoteSigned -Scope LocalMachine -Force
$cert = New-SelfSignedCertificate -DnsName 'packer' -CertStoreLocation 'Cert:\LocalMachine\My'
Enable-PSRemoting -SkipNetworkProfileCheck -Force
Get-ChildItem WSMan:\Localhost\Listener | Where-Object { $_.Keys -contains 'Transport=HTTP' } | Remove-Item -Recurse -Force
New-Item -Path WSMan:\LocalHost\Listener -Transport HTTPS -Address * -CertificateThumbPrint $cert.Thumbprint -Force
Set-Item WSMan:\localhost\Service\Auth\Basic -Value $true
New-NetFirewallRule -Name 'packer-winrm-https' -DisplayName 'Packer WinRM HTTPS' -Protocol TCP -LocalPort 5986 -Action Allow
Restart-Service WinRM
</powershell>
