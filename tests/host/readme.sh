#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The README's install blocks, run as written on a fresh Debian 12 host.
#
#   image    debootstrap's minimal bookworm (scripts/make-chroot.sh --bare):
#            apt as Debian sets it up, no compiler, no headers
#   block    each of the README's three install blocks, in a fresh overlay
#            of the image: the Debian packages, DKMS from the tree, and the
#            build by hand; the tree is a copy at the same path
#
# The host stands in for the user: uname -r names the bookworm cloud
# kernel whose headers the image's apt offers, sudo runs the command (the
# user is root), and apt-get takes "yes" for an answer.  Every command
# that installs or builds runs verbatim.  A command that needs the running
# kernel (modprobe, insmod, rmmod, debugfs) cannot run here, since this host
# loads no modules; the guest tests run the module.  In its place the test
# checks what the command would rely on: the module modprobe would find, the
# vermagic insmod would check, the tool reading captured files.  One ok/FAIL
# line per block.

set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

ok() { echo "ok host/readme/$1${2:+: $2}"; }
fail() { echo "FAIL host/readme/$1: $2"; }

image=$("$top/scripts/make-chroot.sh" --bare bookworm) ||
	{ fail image "scripts/make-chroot.sh --bare bookworm failed"; exit 0; }
(cd "$top" && git ls-files -co --exclude-standard | grep -v '^\.cache' |
	cpio -pdm --quiet "$tmp/src") || { fail copy "cannot copy the tree"; exit 0; }

# block NAME: the indented block after the README line that starts with
# NAME, continuation lines joined, comments and indentation stripped.
block() {
	awk -v intro="$1" '
		index($0, intro) == 1 { on = 1; next }
		on && /^$/ && started { exit }
		on && /^    / { started = 1; print }' "$top/README" |
	sed -e 's/^    //' -e 's/[[:space:]]\+#[[:space:]].*$//' |
	sed -e ':a' -e '/\\$/N; s/\\\n[[:space:]]*/ /; ta'
}

# The checks that stand in for the commands needing the running kernel,
# and the host's stand-ins for the user (written into each overlay).
cat > "$tmp/prelude.sh" <<'EOF'
set -e
fixture=$SRC/tests/host/fixtures/6.1/t1
# the kernel would take this module file (read without kmod, which the
# by-hand block does not install)
matches() {
	v=$(grep -a -o 'vermagic=[[:print:]]*' "$1" | head -n1)
	case ${v#vermagic=} in "$(uname -r) "*) ;; *) echo "$1: '$v'"; exit 1 ;; esac
}
# modprobe would load the module installed for this kernel
loads() {
	f=$(modinfo -k "$(uname -r)" -F filename skbprof)
	matches "$f"
	echo "modprobe would load $f"
}
# insmod would accept this file
loads_file() {
	matches "$1"
	echo "insmod would load $1"
}
# the reader tool runs, against files captured from a guest
reads() {
	"$1" --root "$fixture" latency > /dev/null
	echo "$1 reads the latency file"
}
unloaded() {
	! modinfo -k "$(uname -r)" skbprof > /dev/null 2>&1 ||
		{ echo "the module is still installed"; exit 1; }
	! ls -d /usr/src/skbprof-* 2> /dev/null || { echo "/usr/src kept"; exit 1; }
	echo "module and source gone"
}
EOF

# script NAME: the block as a script, run-time commands replaced.
script() {
	echo ". $tmp/prelude.sh"
	echo "cd $tmp/src"
	block "$1" | while IFS= read -r cmd; do
		printf 'echo %q\n' "+ $cmd"
		case $cmd in
		'sudo modprobe skbprof')	echo loads ;;
		'sudo insmod '*)		echo "loads_file ${cmd#sudo insmod }" ;;
		'sudo skbprof '*)		echo "reads \"\$(command -v skbprof)\"" ;;
		'sudo tools/skbprof '*)		echo "reads tools/skbprof" ;;
		*'apt-get purge'*)		echo "$cmd"; echo unloaded ;;
		*'make dkms-remove'*)		echo "$cmd"; echo unloaded ;;
		*modprobe*|*rmmod*|*debugfs*|*/sys/kernel/debug/*)
			echo "echo '  (needs the running kernel: guest tests)'" ;;
		*)				echo "$cmd" ;;
		esac
	done
}

# run NAME INTRO: the block in a fresh overlay of the image.
run() {
	local name=$1 d=$tmp/$1 out rc
	mkdir -p "$d"/{upper,work,root}
	script "$2" > "$tmp/$name.sh"
	if ! grep -q 'apt-get install' "$tmp/$name.sh"; then
		fail "$name" "no block after '$2' in the README"
		return
	fi
	# shellcheck disable=SC2016
	out=$(unshare --mount --propagation private -- bash -euc '
		image=$1 d=$2 top=$3 tmp=$4 name=$5
		mount -t overlay overlay \
			-o "lowerdir=$image,upperdir=$d/upper,workdir=$d/work" "$d/root"
		r=$d/root
		krel=$(chroot "$r" apt-cache depends linux-headers-cloud-amd64 |
			sed -n "s/.*Depends: linux-headers-\(.*-cloud-amd64\)$/\1/p")
		[ -n "$krel" ] || { echo "no cloud headers in the image"; exit 1; }
		printf "#!/bin/sh\n[ \"\$1\" = -r ] && exec echo %s\nexec /usr/bin/uname \"\$@\"\n" \
			"$krel" > "$r/usr/local/bin/uname"
		printf "#!/bin/sh\nexec \"\$@\"\n" > "$r/usr/local/bin/sudo"
		chmod 755 "$r/usr/local/bin/uname" "$r/usr/local/bin/sudo"
		echo "APT::Get::Assume-Yes \"true\";" > "$r/etc/apt/apt.conf.d/91user-says-yes"
		exec "$top/scripts/in-chroot.sh" "$r" "$tmp" \
			env SRC="$tmp/src" DEBIAN_FRONTEND=noninteractive \
			bash "$tmp/$name.sh"
	' readme "$image" "$d" "$top" "$tmp" "$name" 2>&1)
	rc=$?
	echo "$out" > "$tmp/$name.log"
	if [ $rc -ne 0 ]; then
		fail "$name" "exit $rc at: $(grep '^+ ' <<< "$out" | tail -n1): $(tail -n 5 <<< "$out" | tr '\n' '|')"
	else
		ok "$name" "$(grep -c '^+ ' <<< "$out") commands; $(grep -E 'would load|reads the|gone' <<< "$out" | tr '\n' ';')"
	fi
	rm -rf "$d"
}

run packages "With the Debian packages"
run dkms "DKMS without the package"
run by-hand "Or build and load by hand"
