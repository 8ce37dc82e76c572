#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# tools/prometheus/, shipped and tested for real:
#   - promtool check rules and promtool test rules (every alert firing and
#     not firing: tools/prometheus/skbprof-rules.test.yml);
#   - the Grafana dashboard: tools/prometheus/check-dashboard.py, with
#     Grafana's own schema (@grafana/schema, installed by scripts/deps.sh
#     check into $SKBPROF_CACHE/npm/grafana-schema);
#   - live: a guest (kernel $SKBPROF_PROM_KERNEL, default make demo's)
#     runs skbprof-prom.service's command before and after known traffic
#     and after rmmod (tests/qemu/prom-live.sh); its three files go, one
#     after the other, through the real prometheus-node-exporter's textfile
#     collector into the real prometheus (1 s scrapes and rule evaluations,
#     the rules loaded), and tests/host/prometheus-live.py checks the
#     served values, the traffic's counts, every dashboard query and every
#     recording rule, and the down alert.
# Both servers listen on 127.0.0.1 only and are stopped on exit.
# The guest's files are kept in $OUT/prometheus-guest; SKBPROF_PROM_GUEST=DIR
# takes them from DIR (an earlier run's) instead of booting a guest.
# One ok/FAIL line per check.

set -u
. "$(dirname "$0")/../lib.sh"
pdir=$TOP/tools/prometheus
cache=${SKBPROF_CACHE:-$TOP/.cache}
schema=$cache/npm/grafana-schema
ver=${SKBPROF_PROM_KERNEL:-$DEMO_KERNEL}
# the traffic between file 1 and file 2
UDP_OK=300
UDP_CLOSED=40
TCP_BYTES=500000
# datagrams into a tun device nobody reads, before file 1 and again
# before file 2: more than its queue (txqueuelen 500) takes
TUN_SENT=800

tmp=$(mktemp -d)
pids=()
cleanup() {
	local p
	for p in "${pids[@]}"; do
		kill "$p" 2>/dev/null
	done
	for p in "${pids[@]}"; do
		wait "$p" 2>/dev/null
	done
	rm -rf "$tmp"
}
trap cleanup EXIT

ok() { echo "ok host/prometheus/$1"; }
fail() { echo "FAIL host/prometheus/$1: $2"; }

for c in promtool prometheus prometheus-node-exporter python3; do
	command -v "$c" > /dev/null || { fail deps "$c is missing (scripts/deps.sh check)"; exit 1; }
done

# the rules
if out=$(promtool check rules "$pdir/skbprof-rules.yml" 2>&1); then
	ok rules-check
else
	fail rules-check "$(tail -n 5 <<< "$out" | tr '\n' '|')"
fi
if out=$(cd "$pdir" && promtool test rules skbprof-rules.test.yml 2>&1); then
	ok rules-test
else
	fail rules-test "$(head -c 2000 <<< "$out" | tr '\n' '|')"
fi

# the dashboard: its structure, then Grafana's schema
if out=$(python3 "$pdir/check-dashboard.py" "$pdir/skbprof-dashboard.json" 2>&1); then
	ok dashboard-check
else
	fail dashboard-check "$(head -n 5 <<< "$out" | tr '\n' '|')"
fi
if out=$(python3 "$pdir/check-dashboard.py" --schema "$schema" "$pdir/skbprof-dashboard.json" 2>&1); then
	ok dashboard-schema
else
	fail dashboard-schema "$(head -n 5 <<< "$out" | tr '\n' '|')"
fi
# the checkers can fail: a panel with a string height, an unknown field
# and a repeated id
python3 - "$pdir/skbprof-dashboard.json" "$tmp/bad.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
p = [p for p in d["panels"] if p["type"] != "row"]
p[0]["gridPos"]["h"] = str(p[0]["gridPos"]["h"])
p[1]["bogus"] = 1
p[2]["id"] = p[3]["id"]
json.dump(d, open(sys.argv[2], "w"), indent=2)
PY
out=$(python3 "$pdir/check-dashboard.py" --schema "$schema" "$tmp/bad.json" 2>&1)
if [ $? -ne 0 ] && grep -q 'gridPos needs integers' <<< "$out" &&
   grep -q 'id also used' <<< "$out" && grep -q "'\"bogus\"' does not exist in type 'Panel'" <<< "$out" &&
   grep -q "Type 'string' is not assignable to type 'number'" <<< "$out"; then
	ok dashboard-check-fails
else
	fail dashboard-check-fails "a broken dashboard passed: $(head -n 5 <<< "$out" | tr '\n' '|')"
fi

# the guest: the unit's command before and after the traffic, and after rmmod
guest_files() {
	mkdir -p "$1/etc/default"
	cp "$TOP/systemd/skbprof.default" "$1/etc/default/skbprof"
	printf 'UDP_OK=%s\nUDP_CLOSED=%s\nTCP_BYTES=%s\nTUN_SENT=%s\n' "$UDP_OK" "$UDP_CLOSED" "$TCP_BYTES" "$TUN_SENT" \
		> "$1/usr/share/skbprof/prom-live.env"
}
guest_run() {
	local root=$OUT/$ver/initramfs
	if ! INITRAMFS_EXTRA=guest_files run_script "$ver" "$TOP/tests/qemu/prom-live.sh" 600 > "$tmp/boot.lines"; then
		fail guest "the guest run failed: $(grep FAIL "$tmp/boot.lines" | head -n 3 | tr '\n' '|') ($OUT/$ver/demo/, $OUT/prometheus-guest.log)"
		return 1
	fi
	mkdir -p "$tmp/guest"
	split_sections "$OUT/$ver/demo/result.txt" "$tmp/guest"
	cp "$root/usr/share/skbprof/prom-live.env" "$tmp/guest/"
	rm -rf "$OUT/prometheus-guest"
	cp -r "$tmp/guest" "$OUT/prometheus-guest"
	local f
	for f in f1.prom f2.prom f3.prom f1.snmp f2.snmp; do
		[ -s "$tmp/guest/$f" ] || { fail guest "the guest printed no $f ($OUT/$ver/demo/result.txt)"; return 1; }
	done
	# the unit's command exits 0 each time, also with the module gone (a
	# failing service would be the timer's trouble, not the file's)
	local rcs
	rcs=$(sed -n 's/^unit exit //p' "$OUT/$ver/demo/result.txt" | tr '\n' ' ')
	if [ "$rcs" = "0 0 0 " ]; then
		ok "guest: $ver ran the unit's command three times, exit 0 ($(grep -c . "$tmp/guest/f2.prom") lines in file 2)"
	else
		fail guest "the unit's command exited ${rcs:-never}, want 0 0 0 (before, after the traffic, after rmmod)"
	fi
}
if [ -n "${SKBPROF_PROM_GUEST:-}" ]; then
	# a guest's files kept from an earlier run (while working on the rules)
	cp -r "$SKBPROF_PROM_GUEST" "$tmp/guest"
else
	# the builds' and the boot's chatter: in a log, not among the lines
	mkdir -p "$OUT"
	guest_run 2> "$OUT/prometheus-guest.log" || exit 1
fi

# a free port on 127.0.0.1 for each server
ports=$(python3 -c '
import socket
ss = [socket.socket() for _ in range(2)]
for s in ss:
    s.bind(("127.0.0.1", 0))
print(" ".join(str(s.getsockname()[1]) for s in ss))')
read -r nport pport <<< "$ports"
mkdir -p "$tmp/textfile" "$tmp/tsdb"
prometheus-node-exporter --collector.disable-defaults --collector.textfile \
	--collector.textfile.directory="$tmp/textfile" \
	--web.listen-address="127.0.0.1:$nport" > "$tmp/node_exporter.log" 2>&1 &
pids+=($!)
cat > "$tmp/prometheus.yml" <<EOF
global:
  scrape_interval: 1s
  evaluation_interval: 1s
rule_files:
  - $pdir/skbprof-rules.yml
scrape_configs:
  - job_name: node
    static_configs:
      - targets: ['127.0.0.1:$nport']
EOF
prometheus --config.file="$tmp/prometheus.yml" --storage.tsdb.path="$tmp/tsdb" \
	--web.listen-address="127.0.0.1:$pport" > "$tmp/prometheus.log" 2>&1 &
pids+=($!)
# ready: Prometheus's /-/ready, and its target node up (polls, not sleeps)
if ! python3 - "http://127.0.0.1:$pport" <<'PY'
import json, sys, time, urllib.request
for _ in range(240):
    try:
        with urllib.request.urlopen(sys.argv[1] + "/api/v1/query?query=up", timeout=5) as r:
            res = json.load(r)["data"]["result"]
        if res and res[0]["value"][1] == "1":
            sys.exit(0)
    except OSError:
        pass
    time.sleep(0.25)
sys.exit(1)
PY
then
	fail servers "node_exporter not up in Prometheus within 240 polls: $(tail -n 3 "$tmp/prometheus.log" "$tmp/node_exporter.log" | tr '\n' '|')"
	exit 1
fi
ok "servers: prometheus $(prometheus --version 2>&1 | awk 'NR == 1 { print $3 }') scrapes node_exporter $(prometheus-node-exporter --version 2>&1 | awk 'NR == 1 { print $3 }')"
python3 "$TOP/tests/host/prometheus-live.py" "http://127.0.0.1:$pport" "$tmp/textfile" "$tmp/guest" \
	"$pdir/skbprof-dashboard.json" "$pdir/skbprof-rules.yml"
