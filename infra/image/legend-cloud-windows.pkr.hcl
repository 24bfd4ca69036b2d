# The Windows Server 2022 image every Legend Cloud desktop launches from.
#   packer init . && packer build -var region=ap-south-1 -var public_url=https://legendcloud.in .
# See infra/README.md for what it costs, where the AMI id goes and what to license.

packer {
  required_plugins {
    amazon = {
      version = ">= 1.3.0"
      source  = "github.com/hashicorp/amazon"
    }
  }
}

variable "region" {
  type    = string
  default = "ap-south-1"
}

variable "build_instance_type" {
  # A GPU type, so the NVIDIA driver installs against the hardware it will run on.
  type    = string
  default = "g4dn.xlarge"
}

variable "nvidia_driver" {
  # "gaming": NVIDIA's gaming driver for g4dn/g5 (what games and streaming clients want).
  # "grid":   the GRID (RTX Virtual Workstation) driver for g4dn/g5 (editing and CAD plans).
  type    = string
  default = "gaming"
  validation {
    condition     = contains(["gaming", "grid"], var.nvidia_driver)
    error_message = "The nvidia_driver variable must be gaming or grid."
  }
}

variable "public_url" {
  # The site's PUBLIC_URL: Amazon DCV asks <public_url>/api/dcv/auth to verify session tokens.
  type = string
}

variable "sunshine_msi_url" {
  # Sunshine's Windows installer, pinned to a tagged release (LizardByte/Sunshine, v2026.914.233613).
  type    = string
  default = "https://github.com/LizardByte/Sunshine/releases/download/v2026.914.233613/Sunshine-Windows-AMD64-installer.msi"
}

variable "sunshine_msi_sha256" {
  # That release's SHA-256, as winget's manifest for it records (microsoft/winget-pkgs,
  # manifests/l/LizardByte/Sunshine/2026.914.233613). Change both together when re-pinning.
  type    = string
  default = "1D7FED8BEECD5889DC7FF14CF9F42D6D38F37C3066C13C6C2A5F4E91847E0CCF"
  validation {
    condition     = can(regex("^[0-9A-Fa-f]{64}$", var.sunshine_msi_sha256))
    error_message = "The sunshine_msi_sha256 variable must be the installer's SHA-256 (64 hex digits)."
  }
}

variable "vdd_zip_url" {
  # The IddCx virtual display driver (VirtualDrivers/Virtual-Display-Driver releases), driver-only
  # archive: the one its own Community Scripts/silent-install.ps1 installs.
  type    = string
  default = "https://github.com/VirtualDrivers/Virtual-Display-Driver/releases/download/25.7.23/VirtualDisplayDriver-x86.Driver.Only.zip"
}

variable "nefcon_zip_url" {
  # nefarius' NefCon, which installs the virtual display device.
  type    = string
  default = "https://github.com/nefarius/nefcon/releases/download/v1.14.0/nefcon_v1.14.0.zip"
}

variable "vc_redist_url" {
  # The Microsoft Visual C++ 2015-2022 runtime (x64), which the virtual display driver needs (its README).
  type    = string
  default = "https://aka.ms/vs/17/release/vc_redist.x64.exe"
}

variable "steam_setup_url" {
  # Valve's Steam installer: it carries the Steam Streaming Speakers driver, Sunshine's virtual audio sink.
  type    = string
  default = "https://cdn.cloudflare.steamstatic.com/client/installer/SteamSetup.exe"
}

variable "vigembus_msi_url" {
  # ViGEmBus 1.17.333, the virtual gamepad bus: the last setup that installs on Windows Server
  # (nefarius/ViGEmBus#153) and above Sunshine's minimum (1.17.0.0).
  type    = string
  default = "https://github.com/nefarius/ViGEmBus/releases/download/setup-v1.17.333/ViGEmBusSetup_x64.msi"
}

variable "xbox360_driver_cab_url" {
  # Microsoft's "Xbox 360 Controller for Windows" driver package (Microsoft Update Catalog), which
  # Windows Server lacks and ViGEmBus' Xbox 360 pads need to appear through XInput.
  type    = string
  default = "http://download.windowsupdate.com/msdownload/update/v3-19990518/cabpool/2060_8edb3031ef495d4e4247e51dcb11bef24d2c4da7.cab"
}

variable "fast_launch" {
  # EC2 Fast Launch: EC2 keeps pre-provisioned snapshots of the AMI so launches skip most of
  # Windows' first boot. It costs the snapshots and the instances that make them (infra/README.md).
  type    = bool
  default = true
}

variable "fast_launch_snapshots" {
  type    = number
  default = 5
}

variable "build_instance_profile" {
  # A role with infra/iam/image-builder-policy.json: read of AWS's NVIDIA driver buckets, build time only.
  type    = string
  default = "legend-cloud-image-builder"
}

variable "subnet_id" {
  type    = string
  default = ""
}

locals {
  stamp = formatdate("YYYYMMDD-hhmm", timestamp())
}

source "amazon-ebs" "windows2022" {
  region                      = var.region
  instance_type               = var.build_instance_type
  iam_instance_profile        = var.build_instance_profile
  subnet_id                   = var.subnet_id != "" ? var.subnet_id : null
  associate_public_ip_address = true
  ami_name                    = "legend-cloud-windows2022-${var.nvidia_driver}-${local.stamp}"
  ami_description             = "Legend Cloud desktop: Windows Server 2022, NVIDIA ${var.nvidia_driver} driver, RDP (NLA), CloudWatch agent, GPU poller, Amazon DCV, Sunshine, sound, gamepads, virtual display, health reporter"

  source_ami_filter {
    filters = {
      name                = "Windows_Server-2022-English-Full-Base-*"
      root-device-type    = "ebs"
      virtualization-type = "hvm"
    }
    owners      = ["amazon"]
    most_recent = true
  }

  launch_block_device_mappings {
    device_name           = "/dev/sda1"
    volume_size           = 60
    volume_type           = "gp3"
    delete_on_termination = true
  }

  # WinRM over HTTPS for the build only; user data enables it and the last step removes it.
  communicator   = "winrm"
  winrm_username = "Administrator"
  winrm_use_ssl  = true
  winrm_insecure = true
  winrm_timeout  = "30m"
  user_data_file = "${path.root}/scripts/00-winrm-bootstrap.ps1"

  # Sysprep shuts the machine down itself; Packer waits for "stopped", then snapshots.
  disable_stop_instance = true

  # EC2 Fast Launch on the new AMI (the image is sysprepped, as Fast Launch requires). Packer's
  # amazon plugin calls EnableFastLaunch and waits for "enabled"; the identity running Packer
  # needs ec2:EnableFastLaunch, ec2:DescribeLaunchTemplates and ec2:DescribeFastLaunchImages.
  fast_launch {
    enable_fast_launch    = var.fast_launch
    max_parallel_launches = 6
    target_resource_count = var.fast_launch_snapshots
  }

  run_tags = { "legend:app" = "legend-cloud-image-build" }
  tags = {
    "legend:app"    = "legend-cloud"
    "legend:image"  = "windows2022-${var.nvidia_driver}"
    "legend:driver" = var.nvidia_driver
  }
}

build {
  sources = ["source.amazon-ebs.windows2022"]

  provisioner "file" {
    source      = "${path.root}/cloudwatch-agent.json"
    destination = "C:/ProgramData/LegendCloud/cloudwatch-agent.json"
  }
  provisioner "file" {
    source      = "${path.root}/scripts/gpu-metrics.ps1"
    destination = "C:/ProgramData/LegendCloud/gpu-metrics.ps1"
  }
  provisioner "file" {
    source      = "${path.root}/machine-setup.ps1"
    destination = "C:/ProgramData/LegendCloud/machine-setup.ps1"
  }
  provisioner "file" {
    source      = "${path.root}/health-report.ps1"
    destination = "C:/ProgramData/LegendCloud/health-report.ps1"
  }
  provisioner "file" {
    source      = "${path.root}/console-handback.ps1"
    destination = "C:/ProgramData/LegendCloud/console-handback.ps1"
  }
  provisioner "file" {
    source      = "${path.root}/ec2launch-agent-config.yml"
    destination = "C:/ProgramData/LegendCloud/ec2launch-agent-config.yml"
  }

  provisioner "powershell" {
    environment_vars = ["NVIDIA_DRIVER=${var.nvidia_driver}"]
    script           = "${path.root}/scripts/01-nvidia-driver.ps1"
  }
  # The driver wants a reboot before nvidia-smi answers.
  provisioner "windows-restart" {
    restart_timeout = "20m"
  }
  # The licence needs the installed driver's version (AWS's table picks the certificate by it).
  provisioner "powershell" {
    environment_vars = ["NVIDIA_DRIVER=${var.nvidia_driver}"]
    script           = "${path.root}/scripts/01-nvidia-licence.ps1"
  }
  provisioner "powershell" {
    scripts = [
      "${path.root}/scripts/02-remote-desktop.ps1",
      "${path.root}/scripts/03-cloudwatch-agent.ps1",
      "${path.root}/scripts/04-gpu-metrics-task.ps1",
    ]
  }
  provisioner "powershell" {
    environment_vars = ["PUBLIC_URL=${var.public_url}"]
    script           = "${path.root}/scripts/05-amazon-dcv.ps1"
  }
  # Game streaming: sound (Windows Audio and Steam Streaming Speakers), Sunshine (Moonlight's host),
  # gamepads (Windows' Xbox 360 driver and ViGEmBus), a virtual display with the client's modes
  # (after the VC++ runtime it needs), the machine's own health report, and the task that hands the
  # session back to the console after Remote Desktop.
  provisioner "powershell" {
    environment_vars = [
      "STEAM_SETUP_URL=${var.steam_setup_url}",
      "SUNSHINE_MSI_URL=${var.sunshine_msi_url}",
      "SUNSHINE_MSI_SHA256=${var.sunshine_msi_sha256}",
      "XBOX360_DRIVER_CAB_URL=${var.xbox360_driver_cab_url}",
      "VIGEMBUS_MSI_URL=${var.vigembus_msi_url}",
      "VC_REDIST_URL=${var.vc_redist_url}",
      "VDD_ZIP_URL=${var.vdd_zip_url}",
      "NEFCON_ZIP_URL=${var.nefcon_zip_url}",
    ]
    scripts = [
      "${path.root}/scripts/10-audio.ps1",
      "${path.root}/scripts/07-sunshine.ps1",
      "${path.root}/scripts/11-gamepad.ps1",
      "${path.root}/scripts/08-virtual-display.ps1",
      "${path.root}/scripts/09-health-task.ps1",
      "${path.root}/scripts/12-console-handback-task.ps1",
    ]
  }
  provisioner "windows-restart" {
    restart_timeout = "20m"
  }
  # EC2Launch v2's settings for every launch, validated.
  provisioner "powershell" {
    script = "${path.root}/scripts/06-ec2launch-config.ps1"
  }
  # The image proves itself: any check failing fails the build, naming it and what was seen.
  provisioner "powershell" {
    environment_vars = ["NVIDIA_DRIVER=${var.nvidia_driver}"]
    script           = "${path.root}/scripts/90-verify-image.ps1"
  }
  # Last: sysprep as Packer's amazon plugin documents for Windows 2022 (docs/builders/ebs.mdx),
  # blocking, so this command (not a process left behind in a WinRM session that may die with
  # it) ends with the machine shutting down; Packer then snapshots it.
  provisioner "powershell" {
    inline = [
      "& 'C:/Program Files/Amazon/EC2Launch/ec2launch' reset --block",
      "& 'C:/Program Files/Amazon/EC2Launch/ec2launch' sysprep --shutdown --block",
    ]
  }

  post-processor "manifest" {
    output     = "packer-manifest.json"
    strip_path = true
  }
}
