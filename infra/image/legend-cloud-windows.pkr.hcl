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
  # Sunshine's Windows installer (LizardByte/Sunshine releases). Pin a release for repeatable images.
  type    = string
  default = "https://github.com/LizardByte/Sunshine/releases/latest/download/Sunshine-Windows-AMD64-installer.msi"
}

variable "sunshine_msi_sha256" {
  # The installer's SHA-256, checked when set (recommended with a pinned release URL).
  type    = string
  default = ""
}

variable "vdd_zip_url" {
  # The IddCx virtual display driver (VirtualDrivers/Virtual-Display-Driver releases), driver-only archive.
  type    = string
  default = "https://github.com/VirtualDrivers/Virtual-Display-Driver/releases/download/25.7.23/VirtualDisplayDriver-x86.Driver.Only.zip"
}

variable "nefcon_zip_url" {
  # nefarius' NefCon, which installs the virtual display device.
  type    = string
  default = "https://github.com/nefarius/nefcon/releases/download/v1.14.0/nefcon_v1.14.0.zip"
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
  ami_description             = "Legend Cloud desktop: Windows Server 2022, NVIDIA ${var.nvidia_driver} driver, RDP (NLA), CloudWatch agent, GPU poller, Amazon DCV, Sunshine, virtual display, health reporter"

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
  # Game streaming: Sunshine (Moonlight's host), a virtual display at 1080p-4K up to 144 Hz, and
  # the machine's own health report (at boot: the NVIDIA licence check, among the rest).
  provisioner "powershell" {
    environment_vars = [
      "SUNSHINE_MSI_URL=${var.sunshine_msi_url}",
      "SUNSHINE_MSI_SHA256=${var.sunshine_msi_sha256}",
      "VDD_ZIP_URL=${var.vdd_zip_url}",
      "NEFCON_ZIP_URL=${var.nefcon_zip_url}",
    ]
    scripts = [
      "${path.root}/scripts/07-sunshine.ps1",
      "${path.root}/scripts/08-virtual-display.ps1",
      "${path.root}/scripts/09-health-task.ps1",
    ]
  }
  provisioner "windows-restart" {
    restart_timeout = "20m"
  }
  # Last: EC2Launch v2 settings, then sysprep with shutdown (the machine stops itself).
  provisioner "powershell" {
    script = "${path.root}/scripts/06-ec2launch-sysprep.ps1"
  }

  post-processor "manifest" {
    output     = "packer-manifest.json"
    strip_path = true
  }
}
