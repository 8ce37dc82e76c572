#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Run a command inside a build chroot (scripts/make-chroot.sh), with one
# host directory visible there at its own path.
#
#   scripts/in-chroot.sh ROOT DIR CMD [ARG]...
#
# DIR (may be "" for none) is bind-mounted at ROOT/DIR, so paths in the
# command line, the build log and the kernel's .cmd files are the same
# inside and outside.  /proc is mounted too.  All mounts are made in a
# private mount namespace (unshare): nobody else sees them, and they go
# away with the command however it ends (error, signal, timeout), so there
# is nothing to clean up.  The environment is reset to a small one; proxy
# settings are passed on.  Needs root.

set -euo pipefail

root=${1:?usage: in-chroot.sh ROOT DIR CMD [ARG]...}
dir=${2?usage: in-chroot.sh ROOT DIR CMD [ARG]...}
shift 2
[ $# -gt 0 ] || { echo "in-chroot: no command" >&2; exit 2; }
root=$(realpath "$root")
[ -x "$root/usr/bin/env" ] || { echo "in-chroot: $root is not a chroot" >&2; exit 1; }
[ -z "$dir" ] || dir=$(realpath "$dir")

envs=(PATH=/usr/local/bin:/usr/bin:/usr/sbin HOME=/root LC_ALL=C.UTF-8 TERM=dumb)
for v in http_proxy https_proxy no_proxy HTTP_PROXY HTTPS_PROXY NO_PROXY; do
	if [ -n "${!v:-}" ]; then envs+=("$v=${!v}"); fi
done

# shellcheck disable=SC2016
exec unshare --mount --propagation private -- /bin/bash -euc '
	root=$1 dir=$2
	shift 2
	mount -t proc proc "$root/proc"
	if [ -n "$dir" ]; then
		mkdir -p "$root$dir"
		mount --bind "$dir" "$root$dir"
	fi
	exec chroot "$root" "$@"
' in-chroot "$root" "$dir" /usr/bin/env -i "${envs[@]}" "$@"
