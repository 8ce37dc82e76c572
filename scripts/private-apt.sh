# SPDX-License-Identifier: GPL-2.0
#
# A private apt configuration per Debian release, under the project's
# cache: own sources list, package lists and archives, nothing shared with
# the machine's apt state.  The sources come from the Debian URIs already
# configured on this machine, so no mirror host is named in the tree.
#
#   . scripts/private-apt.sh
#   private_apt bullseye      # sets apt_opts=(...) and aptdir
#   private_apt bookworm arm64   # arm64 packages (and amd64 ones by PKG:amd64)
#   apt-get "${apt_opts[@]}" download PKG
#   uri=$(debian_uri)         # the machine's Debian mirror

# debian_uri: the URI of the Debian repository configured on this machine
# (the one serving the machine's own release, bookworm).
debian_uri() {
	apt-get indextargets --format '$(REPO_URI) $(RELEASE)' |
	sed -n 's/ bookworm$//p' | sort -u | head -n1 | grep .
}

# private_apt DIST [ARCH]: set up (once) and select the configuration for
# DIST.  With ARCH (arm64), packages are ARCH's by default, and the host's
# amd64 ones are still there as PKG:amd64 (a cross build runs the kernel's
# kbuild helpers from the amd64 linux-kbuild package); its state is kept
# apart, in DIST-ARCH.
private_apt() {
	local dist=$1 arch=${2:-} top cache sources tmp stamp
	top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
	cache=${SKBPROF_CACHE:-$top/.cache}
	aptdir=$cache/apt/$dist${arch:+-$arch}
	mkdir -p "$aptdir/lists/partial" "$aptdir/archives/partial" \
		"$aptdir/cache" "$aptdir/etc/preferences.d" "$aptdir/etc/apt.conf.d"

	# A repository counts as Debian when it serves a "bookworm" suite
	# (the machine's own release); its URI is reused with DIST's suites.
	# sid (unstable) has no -updates or -security suite.
	sources=$aptdir/etc/sources.list
	if [ ! -s "$sources" ]; then
		tmp=$sources.tmp
		apt-get indextargets --format '$(REPO_URI) $(RELEASE)' |
		sort -u | while read -r uri rel; do
			case $dist:$rel in
			*:bookworm)		echo "deb $uri $dist main" ;;
			sid:*)			;;
			*:bookworm-updates)	echo "deb $uri $dist-updates main" ;;
			*:bookworm-security)	echo "deb $uri $dist-security main" ;;
			esac
		done | sort -u > "$tmp"
		if [ ! -s "$tmp" ]; then
			echo "private-apt: no Debian bookworm repository configured in /etc/apt" >&2
			return 1
		fi
		mv "$tmp" "$sources"
	fi

	apt_opts=(
		-o "Dir::Etc::sourcelist=$sources"
		-o "Dir::Etc::sourceparts=-"
		-o "Dir::Etc::preferencesparts=$aptdir/etc/preferences.d"
		-o "Dir::Etc::parts=$aptdir/etc/apt.conf.d"
		-o "Dir::State::Lists=$aptdir/lists"
		-o "Dir::State::status=/dev/null"
		-o "Dir::Cache=$aptdir/cache"
		-o "Dir::Cache::archives=$aptdir/archives"
		-o "APT::Sandbox::User=root"
		-o "Debug::NoLocking=1"
		-o "Acquire::Languages=none"
	)
	if [ -n "$arch" ]; then
		apt_opts+=(-o "APT::Architecture=$arch"
			-o "APT::Architectures::=$arch" -o "APT::Architectures::=amd64")
	fi
	# sid's Release file is valid for a week only and is re-signed daily;
	# a mirror or snapshot that lags reads as expired.  The signature is
	# still checked.  Stable releases keep the check.
	if [ "$dist" = sid ]; then
		apt_opts+=(-o "Acquire::Check-Valid-Until=false")
	fi

	# Refresh the lists when they are older than a day.
	stamp=$aptdir/lists/.updated
	if [ ! -e "$stamp" ] || [ -n "$(find "$stamp" -mmin +1440)" ]; then
		echo "private-apt: updating package lists for $dist${arch:+ ($arch)}" >&2
		apt-get "${apt_opts[@]}" -q update >&2 || return 1
		touch "$stamp"
	fi
}

# private_apt_extract DIST PKG PATH DESTDIR: extract PATH (a file in
# the package's data) into DESTDIR.
private_apt_extract() {
	local dist=$1 pkg=$2 path=$3 dest=$4 tmp
	private_apt "$dist" || return 1
	tmp=$(mktemp -d)
	(cd "$tmp" && apt-get "${apt_opts[@]}" -q download "$pkg" >&2) || { rm -rf "$tmp"; return 1; }
	mkdir -p "$dest"
	dpkg-deb --fsys-tarfile "$tmp/${pkg}_"*.deb | tar -x -C "$dest" "./$path"
	rm -rf "$tmp"
}
