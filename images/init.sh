# shellcheck shell=sh
# PID 1 of a vpnlab guest (images/*.toml): loads the modules listed in /modules.order,
# mounts the root read-only over 9p (tag "root": the host's, or with vpnlab.overlay=1 an
# image's own tree under a tmpfs overlay), the kernel's module tree (tag "modules"), the run
# directory read-write (tag "run", at the same path as on the host) and the agent's
# directory (tag "agent"), then chroots into the root and becomes the vpnlab agent.
/bin/busybox --install -s /bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
# shellcheck disable=SC2013  # words on purpose: module file names and kernel arguments hold no spaces
for m in $(cat /modules.order); do
  insmod "/modules/$m" || echo "vpnlab-init: insmod $m failed"
done
# shellcheck disable=SC2013  # the kernel splits its command line at spaces too
for arg in $(cat /proc/cmdline); do
  case "$arg" in
    vpnlab.run=*) RUN="${arg#vpnlab.run=}" ;;
    vpnlab.agent=*) AGENT="${arg#vpnlab.agent=}" ;;
    vpnlab.node=*) hostname "${arg#vpnlab.node=}" ;;
    vpnlab.overlay=1) OVERLAY=1 ;;
  esac
done
opts=trans=virtio,version=9p2000.L,msize=262144
mkdir -p /host
if [ -n "$OVERLAY" ]; then
  # An image's own root tree: read-only for all guests, writable per guest through a tmpfs
  # overlay (so the run directory's mount point can be made in it).
  mkdir -p /lower /rw
  mount -t 9p -o "$opts,ro" root /lower || { echo "vpnlab-init: cannot mount the image root"; poweroff -f; }
  mount -t tmpfs rw /rw
  mkdir -p /rw/upper /rw/work
  mount -t overlay overlay -o lowerdir=/lower,upperdir=/rw/upper,workdir=/rw/work /host || { echo "vpnlab-init: overlay failed"; poweroff -f; }
else
  mount -t 9p -o "$opts,ro" root /host || { echo "vpnlab-init: cannot mount the host root"; poweroff -f; }
fi
mount -t proc proc /host/proc
mount -t sysfs sys /host/sys
mount -t devtmpfs dev /host/dev
mount -t tmpfs -o mode=1777 tmp /host/tmp
mount -t tmpfs -o mode=755 run /host/run
mkdir -p /host/run/vpnlab-modules
mount -t 9p -o "$opts,ro" modules /host/run/vpnlab-modules || echo "vpnlab-init: no module tree"
# A run directory under /tmp lands in the guest's fresh tmpfs: make its mount point there.
[ -n "$RUN" ] && { mkdir -p "/host$RUN" 2>/dev/null; mount -t 9p -o "$opts" run "/host$RUN" || echo "vpnlab-init: cannot mount $RUN"; }
# The kernel loads modules on demand (a wireguard link, tun, sock_diag, sch_netem) through
# a usermode helper. Kernel threads share PID 1's root, which becomes /host with the chroot
# below, so the helper lives at /run/vpnlab-modprobe there; the same path in this initramfs
# covers a helper started before the chroot. Both run kmod's modprobe on the image's tree.
printf '#!/bin/sh\nexec /sbin/modprobe -d /run/vpnlab-modules "$@"\n' > /host/run/vpnlab-modprobe
mkdir -p /run
printf '#!/bin/busybox sh\nexec /bin/busybox chroot /host /sbin/modprobe -d /run/vpnlab-modules "$@"\n' > /run/vpnlab-modprobe
chmod 755 /host/run/vpnlab-modprobe /run/vpnlab-modprobe
echo /run/vpnlab-modprobe > /proc/sys/kernel/modprobe
echo "vpnlab-init: ready for the agent after $(cut -d' ' -f1 /proc/uptime) s"
# The agent's directory comes as its own share: the root may be the image's, and a build
# tree under the host's /tmp would be hidden by the guest's tmpfs.
mkdir -p /host/run/vpnlab-agent
mount -t 9p -o "$opts,ro" agent /host/run/vpnlab-agent || echo "vpnlab-init: cannot mount the agent's directory"
exec chroot /host "/run/vpnlab-agent/$AGENT"
