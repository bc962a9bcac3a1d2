#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Installs, from Debian, what the build and the VM tests need, if missing.
set -e
need=""
have() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'ok installed'; }
# groff-base renders the man pages and dkms builds the module from its
# DKMS folder in make check-ship (tests/ship/); both are small.
# python3-prometheus-client parses gspctl metrics (check-libgsp),
# python3-yaml reads the Kubernetes manifests (check-deploy), and
# python3-kubernetes, the official client, gives the OpenAPI models they
# are validated against (tests/deploy/k8s_openapi.py).
# linux-image-6.12-amd64 and linux-headers-6.12-amd64, from
# bookworm-security, are the meta-packages of Debian 12's newest 6.12:
# the second kernel of the VM's matrix (mk/vm.mk), beside 6.1's
# linux-image-amd64.
# debhelper, dh-dkms and lintian build and check the Debian packages of
# debian/ (check-deb); debootstrap makes the Debian 12 chroot that
# check-deb installs them into (tests/deb/test_chroot.sh).
# flex, bison, bc, libelf-dev and libssl-dev build the debug kernel of
# the VM's suite vm-debug from linux-source (tools/vm/debug-kernel.sh).
# libdrm-dev: libgsp's drm engine path, and libdrm.a for the static
# selftest that drives it in the VM.
# python3-docutils parses Documentation/*.rst (check-docs).
for p in build-essential clang qemu-system-x86 linux-image-amd64 \
	 linux-headers-amd64 linux-source busybox-static cpio kmod \
	 gnuplot-nox pkgconf groff-base dkms python3-prometheus-client \
	 python3-yaml linux-image-6.12-amd64 linux-headers-6.12-amd64 \
	 debhelper dh-dkms lintian debootstrap flex bison bc libelf-dev \
	 libssl-dev python3-kubernetes libdrm-dev python3-docutils; do
	have "$p" || need="$need $p"
done
[ -z "$need" ] && exit 0
if [ "$(id -u)" != 0 ]; then
	echo "missing Debian packages:$need" >&2
	echo "run: sudo apt-get install$need" >&2
	exit 1
fi
echo "installing:$need"
export DEBIAN_FRONTEND=noninteractive
apt-get update -q >/dev/null
apt-get install -y -q --no-install-recommends $need >/dev/null
