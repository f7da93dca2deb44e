#!/bin/busybox sh
# PID 1 of a vpnlab guest (from images/debian12.toml): loads the modules listed in
# /modules.order, mounts the host's root read-only over 9p (tag "root"), the kernel's
# module tree (tag "modules") and the run directory read-write (tag "run", at the same path
# as on the host), then chroots into the host root and becomes the vpnlab agent.
/bin/busybox --install -s /bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
for m in $(cat /modules.order); do
  insmod "/modules/$m" || echo "vpnlab-init: insmod $m failed"
done
for arg in $(cat /proc/cmdline); do
  case "$arg" in
    vpnlab.run=*) RUN="${arg#vpnlab.run=}" ;;
    vpnlab.agent=*) AGENT="${arg#vpnlab.agent=}" ;;
    vpnlab.node=*) hostname "${arg#vpnlab.node=}" ;;
  esac
done
opts=trans=virtio,version=9p2000.L,msize=262144
mkdir -p /host
mount -t 9p -o "$opts,ro" root /host || { echo "vpnlab-init: cannot mount the host root"; poweroff -f; }
# The agent's directory is bound aside before tmpfs hides the host's /tmp (a build tree
# under /tmp, as in CI's clean clones, would vanish with it), then put under /run.
mkdir -p /agent
mount --bind "/host${AGENT%/*}" /agent || echo "vpnlab-init: cannot reach ${AGENT%/*}"
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
mkdir -p /host/run/vpnlab-agent
mount --move /agent /host/run/vpnlab-agent
exec chroot /host "/run/vpnlab-agent/${AGENT##*/}"
