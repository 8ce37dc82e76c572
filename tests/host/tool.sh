#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Host tests of the reader tool against fixture directories captured from
# real guest runs (tests/host/fixtures/README): every view in text, JSON
# (parsed back with jq, numbers compared with what awk reads from the
# fixture files, and drop counts with the kernel's own /proc/net/snmp
# counters captured alongside) and Prometheus (checked by promtool); top's
# per-interval numbers; every error path and exit code.  The views run
# twice: with the normal build and with an ASan/UBSan build.
# One ok/FAIL line per test.

set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
fix=$top/tests/host/fixtures
# the machine forms prom and -j read besides the fixture's own cgroups and drops
machine=(stats counters probes groups stages inflight latency_buckets latency_worst lifetime_buckets)
# drops_rows, the drops table the tool reads; each capture has the human drops beside it
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# cgroup ids resolve against this tree, not the host's: none, unless a
# test builds one
export SKBPROF_CGROUP_ROOT=$tmp/no-cgroup2

ok() { echo "ok host/tool/$1"; }
fail() { echo "FAIL host/tool/$1: $2"; }
# eq NAME GOT WANT
eq() {
	if [ "$2" = "$3" ] && [ -n "$3" ]; then ok "$1"; else fail "$1" "got '$2', want '$3'"; fi
}

t() {	# t NAME WANT_RC WANT_OUTPUT_PATTERN COMMAND...
	local name=$1 want_rc=$2 pat=$3 out rc
	shift 3
	out=$("$@" 2>&1)
	rc=$?
	if [ $rc -ne "$want_rc" ]; then
		fail "$name" "exit $rc, want $want_rc: $out"
	elif ! grep -E -q -- "$pat" <<< "$out"; then
		fail "$name" "output lacks '$pat': $out"
	else
		ok "$name"
	fi
}

for p in jq promtool; do
	command -v $p >/dev/null || { fail deps "$p is missing (scripts/deps.sh check)"; exit 1; }
done
make -s -C "$top/tools" >/dev/null || { fail build "make -C tools"; exit 1; }
make -s -C "$top/tools" skbprof-asan >/dev/null && cp "$top/tools/skbprof-asan" "$tmp/" ||
	{ fail build-asan "make -C tools skbprof-asan"; exit 1; }
cc -shared -fPIC -O2 -Wall -Werror -o "$tmp/failwrite.so" "$top/tests/host/lib/failwrite.c" -ldl ||
	{ fail build-shim "failwrite.so"; exit 1; }

# ---- views against the captured fixtures ------------------------------

# json_shape NAME VIEW=FILE...: the JSON of every view (a file of JSON
# Lines for trace and top: each line a row) keeps the conventions of
# skbprof.8's JSON section:
#   - one type per field: a field of the rows (any key below a view's
#     own) has one JSON type, null aside, in every row of every view
#     (cgroup a string, flow an object, ...);
#   - every time and duration integer ns: no number with a fraction but
#     the per-second rates (keys ending in "rate");
#   - times with a date: every "time" and "*_utc" is RFC 3339 in UTC
#     (2026-11-23T08:41:47.123456Z) or null.
json_shape() {
	local name=$1 arg v f all=
	shift
	for arg in "$@"; do
		v=${arg%%=*} f=${arg#*=}
		case $v in
		trace|top) all+=$(jq -s -c --arg v "$v" '{($v): .}' "$f") ;;
		*) all+=$(jq -c --arg v "$v" '{($v): .}' "$f") ;;
		esac
		all+=$'\n'
	done
	# [key, type, value] of every leaf and object below a view's own keys;
	# a view's own keys (depth 2) by view, the others by name
	local leaves='[paths as $p | select($p | length > 2) | select($p[-1] | type == "string") |
		[($p[-1]), (getpath($p) | type), (getpath($p) | if type == "object" or type == "array" then null else . end)]]'
	eq "$name/json-one-type-per-field" "$(jq -n -r "[inputs | $leaves[] | select(.[1] != \"null\")] |
		group_by(.[0]) | map(select(map(.[1]) | unique | length > 1) |
		\"\\(.[0][0]): \\(map(.[1]) | unique | join(\"/\"))\") | join(\" \") | if . == \"\" then \"one each\" else . end" <<< "$all")" "one each"
	eq "$name/json-integer-ns" "$(jq -n -r "[inputs | $leaves[] | select(.[1] == \"number\" and (.[0] | test(\"rate$\") | not) and .[2] != (.[2] | floor)) |
		\"\\(.[0])=\\(.[2])\"] | unique | join(\" \") | if . == \"\" then \"none\" else . end" <<< "$all")" "none"
	eq "$name/json-times-dated" "$(jq -n -r "[inputs | $leaves[] | select((.[0] == \"time\" or (.[0] | test(\"_utc$\"))) and .[2] != null and
		(.[2] | tostring | test(\"^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}[.][0-9]{6}Z$\") | not)) |
		\"\\(.[0])=\\(.[2])\"] | unique | join(\" \") | if . == \"\" then \"all\" else . end" <<< "$all")" "all"
}

# views TOOL TAG KERNEL: every view of fixtures/KERNEL/t1 with TOOL.
views() {
	local tool=$1 tag=$2 k=$3 d=$fix/$3/t1 n=$2/$3 v got want
	for v in stats drops latency procs cgroups lifetime control; do
		# captures before the cgroups file have none
		[ -e "$d/$v" ] || continue
		# drops: its times in wall-clock time, below
		if [ $v = drops ] || diff <("$tool" --root "$d" "$v") "$d/$v" >/dev/null; then
			ok "$n/text/$v"
		else
			fail "$n/text/$v" "text output differs from the file"
		fi
		"$tool" --root "$d" -j "$v" > "$tmp/$v.json" 2>&1 &&
			jq -e . "$tmp/$v.json" >/dev/null || fail "$n/json/$v" "not JSON: $(head -c 300 "$tmp/$v.json")"
		"$tool" --root "$d" -p "$v" | jq -e . >/dev/null || fail "$n/pretty/$v" "not JSON"
	done

	# drops: each row's count and location; the sum; no reasons on 5.10
	got=$(jq -r '.drops[] | "\(.count) \(.location)"' "$tmp/drops.json")
	want=$(awk '$1 ~ /^[0-9]+$/ { print $1, $NF }' "$d/drops")
	eq "$n/json/drops-rows" "$got" "$want"
	got=$(jq '[.drops[].count] | add' "$tmp/drops.json")
	eq "$n/json/drops-sum" "$got" "$(awk '$1 ~ /^[0-9]+$/ { s += $1 } END { print s }' "$d/drops")"
	# wall-clock times: R - B + T of the clock line, computed here in
	# integer ns with date(1); in JSON and in the text view's columns
	read -r _ _ _ B _ R < "$d/drops"
	# (and the integer ns of both clocks, which JSON has beside them)
	want=
	want_ns=
	while read -r f l; do
		for t in "$f" "$l"; do
			frac=${t#*.}000000000
			b=$(( ${t%.*} * 1000000000 + 10#${frac:0:9} ))
			w=$(( R - B + b ))
			want+=$(printf '%s.%06dZ ' "$(date -u -d "@$(( w / 1000000000 ))" +%Y-%m-%dT%H:%M:%S)" \
				$(( w % 1000000000 / 1000 )))
			want_ns+="$b $w "
		done
		want+=$'\n'
		want_ns+=$'\n'
	done < <(awk '$1 ~ /^[0-9]+$/ { print $(NF - 2), $(NF - 1) }' "$d/drops")
	want=${want%$'\n'}
	eq "$n/json/drops-wall-clock" "$(jq -r '.drops[] | "\(.first_utc) \(.last_utc) "' "$tmp/drops.json")" "$want"
	# the file's seconds since boot as integer ns, and since the epoch
	# (beyond a double's 53 bits: as printed, not through jq)
	eq "$n/json/drops-times-ns" "$(grep -o '"first_boottime_ns":[0-9]*,"first_realtime_ns":[0-9]*,"first_utc":"[^"]*","last_boottime_ns":[0-9]*,"last_realtime_ns":[0-9]*' "$tmp/drops.json" |
		sed 's/"first_utc":"[^"]*",//; s/"[a-z_]*"://g; s/,/ /g; s/$/ /')" "${want_ns%$'\n'}"
	# (jq has doubles: the integers as printed)
	eq "$n/json/drops-clock" "$(grep -o '"clock":{[^}]*}' "$tmp/drops.json")" \
		"\"clock\":{\"boottime_ns\":$B,\"realtime_ns\":$R}"
	"$tool" --root "$d" drops > "$tmp/drops.txt"
	eq "$n/text/drops-wall-clock" "$(awk '$1 ~ /^[0-9]+$/ { printf "%s %s \n", $(NF - 2), $(NF - 1) }' "$tmp/drops.txt")" "$want"
	# the rest of each line as in the file, but the padding
	eq "$n/text/drops" "$(awk '{ $(NF - 2) = $(NF - 1) = "T"; print }' "$tmp/drops.txt" | sed 1d)" \
		"$(awk '{ $(NF - 2) = $(NF - 1) = "T"; print }' "$d/drops" | sed 1d | sed 1s/first/T/)"
	eq "$n/text/drops-clock-line" "$(head -n 1 "$tmp/drops.txt")" "$(head -n 1 "$d/drops")"
	# ground truth: the kernel's own count of UDP datagrams to closed ports
	got=$(jq '.drops[] | select(.location | startswith("__udp4_lib_rcv+")) | .count' "$tmp/drops.json")
	eq "$n/json/drops-udp-equals-snmp-noports" "$got" \
		"$(awk '/^Udp: [0-9]/ { print $3 }' "$d/snmp")"
	if [ "$k" = 5.10 ]; then
		eq "$n/json/drops-no-reasons" "$(jq '[.drops[].reason] | unique' -c "$tmp/drops.json")" '[null]'
	else
		eq "$n/json/drops-reasons" "$(jq -r '.drops[0].reason' "$tmp/drops.json")" NO_SOCKET
	fi

	# latency: every stage's numbers
	got=$(jq -r '.stages[] | "\(.dir) \(.stage) \(.count) \(.min) \(.p50) \(.p90) \(.p99) \(.max) \(.avg)"' "$tmp/latency.json")
	want=$(grep -E '^(rx|tx) ' "$d/latency")
	eq "$n/json/latency-rows" "$got" "$want"
	got=$(jq -r '.stages[] | select(.worst.ns != .max) | .stage' "$tmp/latency.json")
	eq "$n/json/latency-worst-is-max" "${got:-none}" none
	# the worst packets, from latency_worst, as the human view prints them
	# (at_ns: integer ns of CLOCK_MONOTONIC, the view's seconds; flow: an
	# object, as trace's)
	eq "$n/json/latency-worst-as-the-view" \
		"$(jq -r 'def a: if contains(":") then "[\(.)]" else . end;
			  .stages[] | select(.worst) | .worst |
			  "worst \(.ns) ns at \(.at_ns / 1000000000 | floor).\("000000000\(.at_ns % 1000000000)"[-9:]) \(.flow.proto) \(.flow.src | a):\(.flow.sport) -> \(.flow.dst | a):\(.flow.dport) pid \(.pid) comm \(.comm // "-")"' "$tmp/latency.json")" \
		"$(grep '^worst ' "$d/latency")"
	# the numeric file in itself: count is the sum of the buckets; the
	# buckets ascending, [lo, hi) two consecutive bounds; min in the
	# first, max in the last
	for f in latency_buckets lifetime_buckets; do
		got=$(awk '$2 ~ /^bounds=/ { nbb = split(substr($2, 8), bb, ","); for (i = 1; i <= nbb; i++) next_of[bb[i]] = bb[i + 1]; next }
			/^#/ { next }
			{ s = 0; prev = -1; first = ""; last = ""
			  for (i = 1; i <= NF; i++) {
				if (split($i, b, ":") != 3) { c = i; continue }
				if (next_of[b[1]] != b[2] || b[1] + 0 < prev) print "bad bucket " $i
				prev = b[2] + 0; s += b[3]
				if (first == "") { first = b[1]; fhi = b[2] }
				last = b[1]; lhi = b[2]
			  }
			  # count sum min max p50 p90 p99 avg, then the buckets
			  cnt = $(c - 7); mn = $(c - 5); mx = $(c - 4)
			  if (s != cnt) print $1, $2, "count", cnt, "buckets", s
			  if (cnt && (mn + 0 < first + 0 || mn + 0 >= fhi + 0 || mx + 0 < last + 0 || (lhi != "18446744073709551615" && mx + 0 >= lhi + 0)))
				print $1, $2, "min/max outside the buckets"
			  rows++ }
			END { if (!rows) print "no rows" }' "$d/$f")
		eq "$n/file/$f-well-formed" "${got:-ok}" ok
	done
	eq "$n/file/latency-counts" "$(awk '!/^#/ { print $1, $2, $3 }' "$d/latency_buckets")" \
		"$(awk '/^(rx|tx) / { print $1, $2, $3 }' "$d/latency")"
	# JSON: the numeric file's sums and buckets, as they are
	got=$(jq -r '.stages[] | "\(.dir) \(.stage) \(.sum) " + ([.histogram[] | "\(.lo):\(.hi):\(.count)"] | join(" "))' "$tmp/latency.json")
	want=$(awk '!/^#/ { printf "%s %s %s", $1, $2, $4; for (i = 5; i <= NF; i++) if ($i ~ /:/) printf " %s", $i; print "" }' "$d/latency_buckets")
	eq "$n/json/latency-buckets-are-the-files" "$got" "$want"
	got=$(jq -r '.lifetime | "\(.sum) " + ([.histogram[] | "\(.lo):\(.hi):\(.count)"] | join(" "))' "$tmp/lifetime.json")
	want=$(awk '!/^#/ { printf "%s", $3; for (i = 4; i <= NF; i++) if ($i ~ /:/) printf " %s", $i; print "" }' "$d/lifetime_buckets")
	eq "$n/json/lifetime-buckets-are-the-files" "$got" "$want"

	# procs, lifetime, stats, control
	# (captures before the cgroup column have none)
	eq "$n/json/procs" "$(jq -r '.procs[] | "\(.dir) \(.stage) \(.pid) \(.comm) \(if has("cgroup") then "\(.cgroup // "-") " else "" end)\(.count) \(.p50) \(.p99) \(.max)"' "$tmp/procs.json")" \
		"$(grep -E '^(rx|tx) ' "$d/procs")"
	if [ -e "$d/cgroups" ]; then
		eq "$n/json/cgroups" "$(jq -r '.cgroups[] | "\(.dir) \(.stage) \(.cgroup) \(.count) \(.p50) \(.p99) \(.max)"' "$tmp/cgroups.json")" \
			"$(grep -E '^(rx|tx) ' "$d/cgroups")"
	fi
	eq "$n/json/lifetime" "$(jq -r '.lifetime | "lifetime \(.count) \(.min) \(.p50) \(.p90) \(.p99) \(.max) \(.avg)"' "$tmp/lifetime.json")" \
		"$(grep '^lifetime ' "$d/lifetime")"
	eq "$n/json/lifetime-sample" "$(jq .sample "$tmp/lifetime.json")" 4
	eq "$n/json/stats-counters" \
		"$(jq -r '.counters | to_entries[] | "\(.key) \(.value)"' "$tmp/stats.json")" \
		"$(grep -E '^[a-z_]+ [0-9]+$' "$d/stats")"
	eq "$n/json/stats-probes" \
		"$(jq -r '.probes[] | select(.state == "active") | "probe \(.group) \(.symbol) \(.type) active hits \(.hits) nmissed \(.nmissed)"' "$tmp/stats.json")" \
		"$(grep '^probe .* active ' "$d/stats")"
	eq "$n/json/stats-stages" "$(jq -r '.stages[] | "\(.dir) \(.stage) \(.state)"' "$tmp/stats.json")" \
		"$(awk '$1 == "stage" { print $2, $3, $4 }' "$d/stats")"
	eq "$n/json/stats-kernel" "$(jq -r .kernel "$tmp/stats.json")" "$(awk '$1 == "kernel" { print $2 }' "$d/stats")"
	eq "$n/json/stats-nothing-unparsed" "$(jq '.other | length' "$tmp/stats.json")" 0
	eq "$n/json/control" "$(jq -c 'del(.lifetime)' "$tmp/control.json")" \
		'{"filter":null,"sample":1,"stages":"all","procs":"totals","softnet":"off","trace":"on","last_error":null}'
	# captures before control printed lifetime have none
	if grep -q '^lifetime ' "$d/control"; then
		eq "$n/json/control-lifetime" "$(jq .lifetime "$tmp/control.json")" \
			"$(awk '$1 == "lifetime" { print $2 }' "$d/control")"
	fi

	# prom: promtool, and its numbers against the files
	if "$tool" --root "$d" prom > "$tmp/p.prom" && promtool check metrics < "$tmp/p.prom" > "$tmp/promtool.out" 2>&1; then
		ok "$n/prom/promtool"
	else
		fail "$n/prom/promtool" "$(head -c 500 "$tmp/promtool.out")"
	fi
	if [ -e "$d/cgroups" ]; then
		eq "$n/prom/cgroups" "$(awk '/^skbprof_cgroup_stage_packets_total\{/ { s += $NF } END { print s }' "$tmp/p.prom")" \
			"$(awk '/^(rx|tx) / { s += $4 } END { print s }' "$d/cgroups")"
	else
		eq "$n/prom/no-cgroups-file" "$(grep -c '^skbprof_cgroup_' "$tmp/p.prom")" 0
	fi
	eq "$n/prom/drops" "$(awk '/^skbprof_drops_total\{/ { s += $NF } END { print s }' "$tmp/p.prom")" \
		"$(awk '$1 ~ /^[0-9]+$/ { s += $1 } END { print s }' "$d/drops")"
	got=$(grep -E '^skbprof_stage_latency_seconds_count\{' "$tmp/p.prom" | sed -E 's/.*dir="([a-z]+)",stage="([a-z-]+)"\} /\1 \2 /')
	eq "$n/prom/latency-count" "$got" "$(awk '!/^#/ { print $1, $2, $3 }' "$d/latency_buckets")"
	# Every histogram against the numeric files, computed here: at each
	# le (exact decimal seconds, turned into integer ns), the sum of the
	# file's buckets with hi - 1 <= le; +Inf is count, _sum is sum.  The
	# le (each less 1 ns): LES=coarse, the bounds that are powers of two
	# from 2^10 to 2^30 ns; fine, every bound but the first and the last;
	# none, no finite le; the same for every series.
	prom_check() {	# FILE METRIC LES PROM
		awk -v metric="$2" -v les="$3" '
		function ns(s,  a, f) { if (s == "+Inf") return -1; split(s, a, ".")
			f = substr(a[2] "000000000", 1, 9); return a[1] * 1000000000 + f }
		function pow2(b) { while (b > 1 && b % 2 == 0) b /= 2; return b == 1 }
		FNR == NR {
			if ($2 ~ /^bounds=/) { nb = 0; nbb = split(substr($2, 8), bb, ","); for (i = 2; i < nbb; i++)
				if (les == "fine" || (les == "coarse" && bb[i] >= 1024 && bb[i] <= 1073741824 && pow2(bb[i])))
					want_le[++nb] = bb[i] - 1
				next }
			if (/^#/) next
			key = $1 == "lifetime" ? "" : "dir=\"" $1 "\",stage=\"" $2 "\""
			keys[key] = 1; nbk[key] = 0
			for (i = 1; i <= NF; i++) {
				if (split($i, b, ":") != 3) { c = i; continue }
				n = ++nbk[key]; hi[key, n] = b[2]; cnt[key, n] = b[3]
			}
			count[key] = $(c - 7) + 0; sum[key] = $(c - 6) + 0
			next
		}
		index($0, metric "_") != 1 { next }
		{
			m = $0; sub(/[{ ].*/, "", m); lab = ""; le = ""
			if (match($0, /\{[^}]*\}/)) lab = substr($0, RSTART + 1, RLENGTH - 2)
			if (match(lab, /,?le="[^"]*"/)) {
				le = substr(lab, RSTART, RLENGTH); sub(/^,?le="/, "", le); sub(/"$/, "", le)
				lab = substr(lab, 1, RSTART - 1) substr(lab, RSTART + RLENGTH)
			}
			v = $NF
			if (!(lab in keys)) { print "series of no line: " $0; next }
			if (m == metric "_sum") { if (ns(v) != sum[lab]) print "sum " $0 " want ns " sum[lab]; next }
			if (m == metric "_count") { if (v != count[lab]) print "count " $0; next }
			if (le == "+Inf") { if (v != count[lab]) print "+Inf " $0; next }
			L = ns(le); got_le[lab]++
			if (want_le[got_le[lab]] != L) print "le " le " is not bound " got_le[lab] " - 1"
			s = 0; for (i = 1; i <= nbk[lab]; i++) if (hi[lab, i] - 1 <= L) s += cnt[lab, i]
			if (s != v) print "cumulative " $0 " want " s
		}
		END { for (k in keys) if (got_le[k] != nb) print "series {" k "} has " got_le[k] + 0 " le, want " nb }
		' "$1" "$4"
	}
	"$tool" --root "$d" --detail buckets,histograms,probe prom > "$tmp/fine.prom"
	got=$(prom_check "$d/latency_buckets" skbprof_stage_latency_seconds coarse "$tmp/p.prom")
	eq "$n/prom/latency-histograms-equal-the-file" "${got:-ok}" ok
	got=$(prom_check "$d/latency_buckets" skbprof_stage_latency_seconds fine "$tmp/fine.prom")
	eq "$n/prom/detail-buckets-latency-equal-the-file" "${got:-ok}" ok
	got=$(prom_check "$d/lifetime_buckets" skbprof_skb_lifetime_seconds none "$tmp/p.prom")
	eq "$n/prom/lifetime-histogram-equals-the-file" "${got:-ok}" ok
	got=$(prom_check "$d/lifetime_buckets" skbprof_skb_lifetime_seconds fine "$tmp/fine.prom")
	eq "$n/prom/detail-histograms-lifetime-equals-the-file" "${got:-ok}" ok
	# 21 coarse le (2^10 - 1 ns ... 2^30 - 1 ns), 319 fine ones
	eq "$n/prom/le-count" "$(grep -o 'le="[0-9.]*"' "$tmp/p.prom" | sort -u | wc -l)" 21
	eq "$n/prom/detail-le-count" "$(grep -c '^skbprof_skb_lifetime_seconds_bucket{le="[0-9.]*"}' "$tmp/fine.prom")" 319
	got=$(awk -F'[{}]' '/_bucket\{/ { key = $2; sub(/,?le="[^"]*"/, "", key);
		if (key == last && $3 + 0 < prev + 0) bad++; last = key; prev = $3 }
		END { print bad + 0 }' "$tmp/p.prom" "$tmp/fine.prom")
	eq "$n/prom/buckets-cumulative" "$got" 0
	# probes: by state, and a series each with --detail probe
	eq "$n/prom/probes-by-state" "$(sed -n -E 's/^skbprof_probes\{state="([a-z]+)"\} /\1 /p' "$tmp/p.prom" | sort)" \
		"$(awk '!/^#/ { print $4 }' "$d/probes" | sort | uniq -c | awk '{ print $2, $1 }')"
	eq "$n/prom/probes-missed" "$(awk '$1 == "skbprof_probe_missed_total" { print $2 }' "$tmp/p.prom")" \
		"$(awk '!/^#/ && $4 == "active" { s += $6 } END { print s + 0 }' "$d/probes")"
	eq "$n/prom/probe-hits" "$(grep -F 'skbprof_probe_hits_total{group="rx-drv",symbol="netif_receive_skb",type="tracepoint"}' "$tmp/fine.prom" | awk '{ print $2 }')" \
		"$(awk '$1 == "probe" && $3 == "netif_receive_skb" { print $7 }' "$d/stats")"
	# drop locations: the symbol; with --detail offset, as the file
	eq "$n/prom/location-symbol" "$(grep -o 'location="[^"]*"' "$tmp/p.prom" | sort -u | tr '\n' ' ')" \
		"$(awk '$1 ~ /^[0-9]+$/ { sub(/\+.*/, "", $NF); print "location=\"" $NF "\"" }' "$d/drops" | sort -u | tr '\n' ' ')"
	eq "$n/prom/detail-offset" "$("$tool" --root "$d" -d offset prom | grep -o 'location="[^"]*"' | sort | tr '\n' ' ')" \
		"$(awk '$1 ~ /^[0-9]+$/ { print "location=\"" $NF "\"" }' "$d/drops" | sort | tr '\n' ' ')"
	# every counters line the tool exports, typed; none unknown to it
	got=$("$tool" --root "$d" prom 2>&1 >/dev/null)
	eq "$n/prom/no-unknown-counters" "${got:-none}" none
	got=$(awk '/^# TYPE skbprof_stats_/ && $4 != "counter" && $4 != "gauge"' "$tmp/p.prom")
	eq "$n/prom/stats-typed" "${got:-none}" none
	eq "$n/prom/in-use-is-gauge" "$(awk '$2 == "TYPE" && $3 == "skbprof_stats_table_in_use_lifetime" { print $4 }' "$tmp/p.prom")" gauge
	eq "$n/prom/up" "$(awk '$1 == "skbprof_up" { print $2 }' "$tmp/p.prom")" 1
	eq "$n/prom/stats" "$(awk '$1 == "skbprof_stats_table_inserts_total" { print $2 }' "$tmp/p.prom")" \
		"$(awk '$1 == "table_inserts" { print $2 }' "$d/stats")"

	# trace: text as is; JSON Lines from trace_records, one object per
	# record, checked against the records' own keys and the traffic the
	# capture made for them: 20 datagrams to 9000, 5 to the closed 9999
	if diff <("$tool" --root "$d" trace) "$d/trace" >/dev/null; then ok "$n/trace/text"; else fail "$n/trace/text" "differs"; fi
	"$tool" --root "$d" -j trace > "$tmp/trace.jsonl"
	r=$d/trace_records
	eq "$n/trace/records" "$(jq -c . "$tmp/trace.jsonl" | wc -l)" "$(wc -l < "$r")"
	got=$(jq -r 'select(.type == "unknown") | .raw' "$tmp/trace.jsonl")
	eq "$n/trace/no-unknown" "${got:-none}" none
	eq "$n/trace/drops" "$(jq -r 'select(.type == "drop") | .location' "$tmp/trace.jsonl" | sort | uniq -c)" \
		"$(grep -o ' location=[^ ]*' "$r" | cut -d= -f2 | sort | uniq -c)"
	eq "$n/trace/packets" "$(jq -r 'select(.type == "packet") | "\(.dir) \(.comm) \(.pid) \(.stages | map(.stage) | join(","))"' "$tmp/trace.jsonl" | sort | uniq -c)" \
		"$(awk '{ for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
			 if (v["kind"] == "rx" || v["kind"] == "tx") { s = v["stages"]; gsub(/:[0-9]+/, "", s)
				print v["kind"], v["comm"], v["pid"], s } }' "$r" | sort | uniq -c)"
	eq "$n/trace/udp-9000" "$(jq -r 'select(.type == "packet" and .flow.dport == 9000) | .dir' "$tmp/trace.jsonl" |
				    sort | uniq -c | awk '{ printf "%s %s ", $1, $2 }')" "20 rx 20 tx "
	eq "$n/trace/udp-9999-drops" "$(jq -r 'select(.type == "drop" and .flow.proto == "UDP") | .flow.dport' "$tmp/trace.jsonl" |
					 sort | uniq -c | awk '{ printf "%s %s ", $1, $2 }')" "5 9999 "
	# a stage's ns, as the record has it; the time, with its date, the
	# record's realtime_ns (as printed: beyond a double's 53 bits)
	eq "$n/trace/stage-ns" "$(jq -r 'select(.type == "packet") | .stages[] | "\(.stage):\(.ns)"' "$tmp/trace.jsonl" | tr '\n' ',')" \
		"$(grep -o 'stages=[^ ]*' "$r" | grep -v 'stages=-$' | cut -d= -f2 | tr '\n' ',')"
	got=$(grep -o '"time":"[^"]*","realtime_ns":[0-9]*' "$tmp/trace.jsonl" | head -n 1)
	w=$(grep -m1 -o 'realtime_ns=[0-9]*' "$r" | cut -d= -f2)
	eq "$n/trace/time" "$got" \
		"\"time\":\"$(date -u -d "@$(( w / 1000000000 ))" +%Y-%m-%dT%H:%M:%S).$(printf %06d $(( w % 1000000000 / 1000 )))Z\",\"realtime_ns\":$w"

	# top: t0 then t1, so the interval's numbers are known.  t0 comes
	# through a FIFO: its writer returns once top has opened it, and then
	# puts the file of t1 in its place, for top's next open, 2 s later.
	# (A second write into the FIFO could reach top's first read when
	# top was slow to close it, and then its next open would never end.)
	rm -rf "$tmp/top"
	mkdir "$tmp/top"
	for v in latency_buckets drops_rows; do
		mkfifo "$tmp/top/$v"
		cp "$d/$v" "$tmp/top/.$v.t1"
		( cat "$fix/$k/t0/$v" > "$tmp/top/$v"; mv "$tmp/top/.$v.t1" "$tmp/top/$v" ) &
	done
	timeout 20 "$tool" --root "$tmp/top" top -j -n 1 -i 2 > "$tmp/top.json"
	wait
	got=$(jq '.drops[] | select(.location | startswith("__udp4_lib_rcv+")) | .count' "$tmp/top.json")
	want=$(( $(awk '/^Udp: [0-9]/ { print $3 }' "$d/snmp") - $(awk '/^Udp: [0-9]/ { print $3 }' "$fix/$k/t0/snmp") ))
	eq "$n/top/udp-drops-equal-snmp-delta" "$got" "$want"
	got=$(jq -r '.stages[] | "\(.dir) \(.stage) \(.count)"' "$tmp/top.json" | sort)
	want=$(join <(awk '/^(rx|tx) / { print $1 "/" $2, $3 }' "$fix/$k/t0/latency_buckets" | sort) \
		    <(awk '/^(rx|tx) / { print $1 "/" $2, $3 }' "$d/latency_buckets" | sort) |
		awk '$3 != $2 { sub("/", " ", $1); print $1, $3 - $2 }' | sort)
	eq "$n/top/stage-deltas" "$got" "$want"
	eq "$n/top/rate" "$(jq '[.stages[] | (.rate * $i - .count) as $e | $e * $e < 0.0001 * .count * .count] | all' --argjson i "$(jq '.interval_ns / 1e9' "$tmp/top.json")" "$tmp/top.json")" true
	# the frame's time: RFC 3339 with its date, of its realtime_ns (within
	# a minute of now); the interval in integer ns, about -i 2
	got=$(grep -o '"time":"[^"]*","realtime_ns":[0-9]*,"interval_ns":[0-9]*' "$tmp/top.json")
	w=$(sed 's/.*"realtime_ns":\([0-9]*\).*/\1/' <<< "$got")
	eq "$n/top/time" "$(sed -E 's/"interval_ns":[1-9][0-9]{9}$/"interval_ns":N/' <<< "$got")" \
		"\"time\":\"$(date -u -d "@$(( w / 1000000000 ))" +%Y-%m-%dT%H:%M:%S).$(printf %06d $(( w % 1000000000 / 1000 )))Z\",\"realtime_ns\":$w,\"interval_ns\":N"
	eq "$n/top/time-now" "$(( ${w:-0} / 1000000000 - $(date +%s) < 60 && $(date +%s) - ${w:-0} / 1000000000 < 60 ))" 1
	# the interval's p99 bound: from bucket differences, never below the
	# interval's smallest possible value (its lowest differing bucket)
	eq "$n/top/p99-bound" "$(jq '[.stages[] | .p99_below_ns >= .p50_below_ns and .p50_below_ns > 0] | all' "$tmp/top.json")" true

	# the JSON conventions, over every view of the capture
	args=()
	for v in stats drops latency procs cgroups lifetime control; do
		[ -e "$d/$v" ] && args+=("$v=$tmp/$v.json")
	done
	json_shape "$n" "${args[@]}" trace="$tmp/trace.jsonl" top="$tmp/top.json"
}

for k in $(cd "$fix" && ls -d [0-9]* 2>/dev/null); do
	views "$top/tools/skbprof" plain "$k"
	ASAN_OPTIONS=detect_leaks=1 views "$tmp/skbprof-asan" asan "$k"
done
[ -d "$fix/5.10" ] && [ -d "$fix/6.1" ] && ok fixtures-present || fail fixtures-present "5.10 and 6.1 needed"

# ---- the formats announced for the next module version ----------------

d=$fix/next
tool=$top/tools/skbprof
eq next/drops-stage "$("$tool" -r "$d" -j drops | jq -r '.drops[] | "\(.count) \(.stage) \(.dev) \(.location)"')" \
"42 ip-udp lo __udp4_lib_rcv+0x9a2/0xc30
2 ip-tcp lo tcp_v4_rcv+0x81/0xee0
1 null null sk_stream_kill_queues+0x58/0xe0
3 drv veth0+ __dev_queue_xmit+0x1c2/0xd30
5 app eth0 nf_hook_slow+0xa1/0xf0 [nf_tables]"
# netns and cgroup columns; no cgroup2 tree here: no paths
eq next/drops-netns-cgroup "$("$tool" -r "$d" -j drops | jq -c '[.drops[] | [.netns, .cgroup, .cgroup_path]]')" \
	'[[4026531840,null,null],[4026532288,null,null],[4026531840,"7001",null],[4026532288,"7002+",null],[null,null,null]]'
eq next/procs-cgroup "$("$tool" -r "$d" -j procs | jq -c '[.procs[] | [.pid, .comm, .cgroup, .cgroup_path, .count]]')" \
	'[[300,"skbp_a","7001",null,300],[300,"skbp_a","7001",null,300],[301,"skbp_b","7002",null,200],[302,"nocgroup",null,null,7]]'
eq next/cgroups "$("$tool" -r "$d" -j cgroups | jq -r '.cgroups[] | "\(.dir) \(.stage) \(.cgroup) \(.count) \(.p50) \(.p99) \(.max)"')" \
	"$(grep -v '^#' "$d/cgroups")"
if diff <("$tool" -r "$d" cgroups) "$d/cgroups" >/dev/null; then ok next/cgroups-text; else fail next/cgroups-text "differs"; fi
# ids resolve to paths by the inode numbers of a cgroup2 tree: a stand-in
# whose directories' inodes are written into a copy of the files
mkdir -p "$tmp/cg2/test/a" "$tmp/cg2/test/b" "$tmp/cgnext"
ia=$(stat -c %i "$tmp/cg2/test/a")
ib=$(stat -c %i "$tmp/cg2/test/b")
for f in drops drops_rows procs cgroups trace trace_records; do
	sed -e "s/\b7001\b/$ia/g" -e "s/\b7002\b/$ib/g" "$d/$f" > "$tmp/cgnext/$f"
done
cp "${machine[@]/#/$fix/6.1/t1/}" "$fix"/6.1/t1/{latency,lifetime} "$tmp/cgnext/"
export SKBPROF_CGROUP_ROOT=$tmp/cg2
eq next/cgroups-paths "$("$tmp/skbprof-asan" -r "$tmp/cgnext" -j cgroups | jq -r '.cgroups[] | "\(.cgroup_path) \(.count)"')" \
"/test/a 300
/test/a 300
/test/b 200"
eq next/procs-paths "$("$tool" -r "$tmp/cgnext" -j procs | jq -c '[.procs[] | .cgroup_path]')" '["/test/a","/test/a","/test/b",null]'
# the text views: the cgroup column by path, the rest of each line as is
# (want: the file with the ids of the stand-in tree as its paths)
text_paths() {	# VIEW
	sed -e "/^#/!s| $ia\([+ ]\)| /test/a\1|" -e "/^#/!s| $ib\([+ ]\)| /test/b\1|" "$tmp/cgnext/$1"
}
eq next/cgroups-text-paths "$("$tool" -r "$tmp/cgnext" cgroups)" "$(text_paths cgroups)"
# drops_rows without a clock line: drawn as the kernel draws drops, but
# the cgroup column by path (the blanks after it are the id's, as the
# kernel pads it, so compare by column)
"$tmp/skbprof-asan" -r "$tmp/cgnext" drops > "$tmp/next-drops.txt"
eq next/drops-text-paths "$(awk '{ $6 = "C"; print }' "$tmp/next-drops.txt")" "$(awk '{ $6 = "C"; print }' "$d/drops")"
eq next/drops-text-paths-cgroups "$(awk '{ print $6 }' "$tmp/next-drops.txt" | tr '\n' ' ')" "cgroup - - /test/a /test/b+ - "
eq next/procs-text-paths "$("$tmp/skbprof-asan" -r "$tmp/cgnext" procs)" "$(text_paths procs)"
eq next/cgroups-text-paths-differ "$("$tool" -r "$tmp/cgnext" cgroups | grep -c ' /test/[ab] ')" \
	"$(grep -c -E " ($ia|$ib) " "$tmp/cgnext/cgroups")"
eq next/drops-paths "$("$tool" -r "$tmp/cgnext" -j drops | jq -c '[.drops[] | .cgroup_path]')" '[null,null,"/test/a","/test/b",null]'
eq next/trace-paths "$("$tool" -r "$tmp/cgnext" -j trace | jq -c 'select(.type == "packet") | [.cgroup, .cgroup_path]' | tr '\n' ' ')" \
	"[\"$ia\",\"/test/a\"] [null,null] "
"$tool" -r "$tmp/cgnext" prom > "$tmp/cg.prom"
if promtool check metrics < "$tmp/cg.prom" > "$tmp/promtool.out" 2>&1; then ok next/prom-promtool; else fail next/prom-promtool "$(head -c 300 "$tmp/promtool.out")"; fi
eq next/prom-drops-labels "$(grep '^skbprof_drops_total{' "$tmp/cg.prom" | grep -o 'netns="[^"]*",cgroup="[^"]*"' | tr '\n' ' ')" \
	'netns="4026531840",cgroup="" netns="4026532288",cgroup="" netns="4026531840",cgroup="/test/a" netns="4026532288",cgroup="/test/b+" netns="",cgroup="" '
# the cgroups view in prom: counters of packets and of their time, no quantiles
eq next/prom-cgroups "$(grep -E '^skbprof_cgroup_stage_[a-z0-9_]*\{' "$tmp/cg.prom" | sed 's/ .*//')" \
'skbprof_cgroup_stage_packets_total{dir="rx",stage="udp-app",cgroup="/test/a"}
skbprof_cgroup_stage_packets_total{dir="tx",stage="app-udp",cgroup="/test/a"}
skbprof_cgroup_stage_packets_total{dir="tx",stage="app-udp",cgroup="/test/b"}
skbprof_cgroup_stage_seconds_total{dir="rx",stage="udp-app",cgroup="/test/a"}
skbprof_cgroup_stage_seconds_total{dir="tx",stage="app-udp",cgroup="/test/a"}
skbprof_cgroup_stage_seconds_total{dir="tx",stage="app-udp",cgroup="/test/b"}'
# a path that does not resolve (removed since): the id stays
rmdir "$tmp/cg2/test/b"
eq next/cgroups-gone "$("$tool" -r "$tmp/cgnext" -j cgroups | jq -c '[.cgroups[] | .cgroup_path]')" '["/test/a","/test/a",null]'
eq next/prom-gone "$("$tool" -r "$tmp/cgnext" prom | grep -c "cgroup=\"$ib+\"")" 1
eq next/cgroups-text-gone "$("$tool" -r "$tmp/cgnext" cgroups | awk '!/^#/ { print $3 }' | tr '\n' ' ')" \
	"/test/a /test/a $ib "
export SKBPROF_CGROUP_ROOT=$tmp/no-cgroup2
"$tmp/skbprof-asan" -r "$d" -j trace > "$tmp/next.jsonl"
eq next/trace-kinds "$(jq -r .type "$tmp/next.jsonl" | tr '\n' ' ')" "packet packet drop drop hit lost unknown "
eq next/trace-rx "$(jq -c 'select(.type == "packet" and .dir == "rx") | [.cpu, .stages, .flow, .comm, .pid]' "$tmp/next.jsonl")" \
	'[1,[{"stage":"drv-ip","ns":23104},{"stage":"ip-udp","ns":5200},{"stage":"udp-app","ns":189000}],{"proto":"UDP","src":"10.0.0.1","sport":443,"dst":"10.0.0.2","dport":51234},"comm",1234]'
eq next/trace-tx-v6 "$(jq -c 'select(.dir == "tx") | [(.stages | length), .flow.src, .flow.dport, .comm, .pid]' "$tmp/next.jsonl")" '[4,"2001:db8::1",53,"dig",4321]'
eq next/trace-drop "$(jq -c 'select(.type == "drop") | [.reason, .location, .dev, .stage, .flow.dst, .netns]' "$tmp/next.jsonl" | tr '\n' ' ')" \
	'["NO_SOCKET","__udp4_lib_rcv+0x9a2/0xc30","lo","ip-udp","127.0.0.1",4026531840] [null,"nf_hook_slow+0xa1/0xf0 [nf_tables]","eth0",null,"ff02::1",null] '
eq next/trace-hit "$(jq -c 'select(.type == "hit") | [.dir, .point, .symbol, .mono_ns, .offset_ns, .flow.sport]' "$tmp/next.jsonl")" \
	'["rx","ip","udp_rcv",1234000000567,12500,443]'
eq next/trace-lost "$(jq -c 'select(.type == "lost") | .lost' "$tmp/next.jsonl")" 17
for v in drops procs cgroups; do
	"$tool" -r "$d" -j "$v" > "$tmp/next-$v.json"
done
# softnet: no capture has it on; Documentation/skbprof.rst's example.
# Its "all" rows (the sums) have cpu null in JSON, so that cpu is a
# number or null, and prom leaves them out of its per-CPU series.
mkdir "$tmp/sn"
cat > "$tmp/sn/softnet" <<'END'
# softirqs and NAPI polls per CPU
# cpu what count min p50 p90 p99 max avg (ns)
0 net-rx-wait 14 1440 4607 9215 9640 9640 4862
1 net-rx-wait 59 670 1919 40959 116740 116740 11216
all net-rx-wait 73 670 2815 30719 116740 116740 9997
END
# the JSON's figures come from softnet_buckets, the machine table
cat > "$tmp/sn/softnet_buckets" <<'END'
# softnet=on
# bounds=0,1024,2048,4096,8192,16384,131072
# cpu what count sum min max p50 p90 p99 avg buckets...
0 net-rx-wait 14 68068 1440 9640 4607 9215 9640 4862 1024:2048:3 4096:8192:8 8192:16384:3
1 net-rx-wait 59 661744 670 116740 1919 40959 116740 11216 0:1024:10 1024:2048:30 16384:131072:19
all net-rx-wait 73 729812 670 116740 2815 30719 116740 9997 0:1024:10 1024:2048:33 4096:8192:8 8192:16384:3 16384:131072:19
END
cat > "$tmp/sn/softnet_counters" <<'END'
# cpu net_rx polls polls_full time_squeeze backlog_drops ksoftirqd processed
0 14 0 0 0 0 0 0
1 59 59 45 45 3958 6 45
all 73 59 45 45 3958 6 45
END
"$tool" -r "$tmp/sn" -j softnet > "$tmp/next-softnet.json"
eq next/softnet-json "$(jq -c '[(.softnet[] | [.cpu, .count]), (.counters[] | [.cpu, .net_rx])]' "$tmp/next-softnet.json")" \
	'[[0,14],[1,59],[null,73],[0,14],[1,59],[null,73]]'
cp "${machine[@]/#/$fix/6.1/t1/}" "$fix"/6.1/t1/drops_rows "$tmp/sn/"
# prom: the counters summed over the CPUs (the "all" row), per CPU with -d cpu
eq next/softnet-prom "$("$tool" -r "$tmp/sn" prom | grep -E '^skbprof_softnet_(net_rx|polls)_total' | tr '\n' ' ')" \
	'skbprof_softnet_net_rx_total 73 skbprof_softnet_polls_total 59 '
eq next/softnet-prom-cpu "$("$tool" -r "$tmp/sn" -d cpu prom | grep -E '^skbprof_softnet_cpu_net_rx_total' | tr '\n' ' ')" \
	'skbprof_softnet_cpu_net_rx_total{cpu="0"} 14 skbprof_softnet_cpu_net_rx_total{cpu="1"} 59 '
# control: lifetime off is null (else a number), as filter clear
printf 'filter clear\nsample 1\nstages all\nlifetime off\nprocs totals\nsoftnet off\nkretprobes off\ntrace off\nlast_error: none\n' > "$tmp/sn/control"
eq next/control-lifetime-off "$("$tool" -r "$tmp/sn" -j control | jq -c '[.filter, .lifetime, .sample]')" '[null,null,1]'
json_shape next drops="$tmp/next-drops.json" procs="$tmp/next-procs.json" \
	cgroups="$tmp/next-cgroups.json" softnet="$tmp/next-softnet.json" \
	trace="$tmp/next.jsonl"
eq next/trace-unknown-raw "$(jq -r 'select(.type == "unknown") | .raw' "$tmp/next.jsonl")" \
	"$(grep SOMETHING "$d/trace_records")"

# ---- bounded cardinality: fixtures/fleet, more cgroups than N ---------

# prom keeps the N cgroups with the most packets (ties to the lower id)
# and sums the rest into cgroup="other".  The truth is computed here with
# jq from the fixture's own lines: the cgroups file ranked by its counts,
# the drops file by its drop counts.
d=$tmp/fleet
tool=$top/tools/skbprof
mkdir -p "$d"
cp "${machine[@]/#/$fix/6.1/t1/}" "$fix"/fleet/{cgroups,drops,drops_rows,drops_devices} "$d/"
# cg_rows FILE: the cgroups file's rows as JSON {dir, stage, cg, count, max}
cg_rows='split("\n") | map(select(length > 0 and (startswith("#") | not)) | split(" ") |
	{dir: .[0], stage: .[1], cg: .[2], count: (.[3] | tonumber), sum: (.[7] | tonumber)})'
# the drops file's rows: {key (every label but the cgroup), cg: its id or "-", count}
drop_rows='split("\n") | map(select(length > 0 and (startswith("#") | not)) |
	split(" ") | map(select(length > 0)) | select(.[0] | test("^[0-9]+$")) |
	{key: "\(.[1]) \(.[6])", cg: (.[5] | rtrimstr("+")), count: (.[0] | tonumber)})'
# keep: the ids of the top $n (-1: all) of rows [{cg, count}] with a cgroup
keep='map(select(.cg != "-")) | group_by(.cg) | map({cg: .[0].cg, p: (map(.count) | add)}) |
	sort_by(-.p, (.cg | tonumber)) | map(.cg) | if $n < 0 then . else .[:$n] end'
# fleet NAME N TOOL-ARGS...: prom with TOOL-ARGS against the truth for N
fleet() {
	local name=fleet/$1 n=$2 out=$tmp/fleet.prom got want
	shift 2
	"$tool" -r "$d" "$@" prom > "$out"
	if promtool check metrics < "$out" > "$tmp/promtool.out" 2>&1; then ok "$name/promtool"; else
		fail "$name/promtool" "$(head -c 300 "$tmp/promtool.out")"; fi
	# kept cgroups: their rows as they are; the rest: one "other" per stage
	want=$(jq -R -s -r --argjson n "$n" "$cg_rows"' | ('"$keep"') as $k |
		(map(select(.cg as $c | $k | index($c))) | .[] | "\(.dir) \(.stage) \(.cg) \(.count)"),
		(map(select(.cg as $c | $k | index($c) | not)) | group_by([.dir, .stage]) | .[] |
		 "\(.[0].dir) \(.[0].stage) other \(map(.count) | add)")' "$d/cgroups" | sort)
	got=$(sed -n -E 's/^skbprof_cgroup_stage_packets_total\{dir="([^"]*)",stage="([^"]*)",cgroup="([^"]*)"\} /\1 \2 \3 /p' "$out" | sort)
	eq "$name/cgroup-packets" "$got" "$want"
	eq "$name/cgroup-series" "$(grep -c '^skbprof_cgroup_stage_packets_total{' "$out")" "$(wc -l <<< "$want")"
	# the sum over the series is the file's total
	eq "$name/cgroup-total" "$(awk '/^skbprof_cgroup_stage_packets_total\{/ { s += $NF } END { print s }' "$out")" \
		"$(awk '/^(rx|tx) / { s += $4 } END { print s }' "$d/cgroups")"
	# cgroups labelled: N, and other when there are more
	eq "$name/cgroup-labels" "$(grep -o '^skbprof_cgroup_stage_packets_total{.*cgroup="[^"]*"' "$out" | sed 's/.*cgroup=//' | sort -u | wc -l)" \
		"$(jq -R -s --argjson n "$n" "$cg_rows"' | (map(.cg) | unique | length) as $all |
		   ('"$keep"' | length) as $k | $k + (if $all > $k then 1 else 0 end)' "$d/cgroups")"
	# seconds: each kept row's sum, other's the sum of its rows' (ns in the file)
	want=$(jq -R -s -r --argjson n "$n" "$cg_rows"' | ('"$keep"') as $k |
		(map(select(.cg as $c | $k | index($c))) | .[] | "\(.dir) \(.stage) \(.cg) \(.sum)"),
		(map(select(.cg as $c | $k | index($c) | not)) | group_by([.dir, .stage]) | .[] |
		 "\(.[0].dir) \(.[0].stage) other \(map(.sum) | add)")' "$d/cgroups" | sort)
	got=$(sed -n -E 's/^skbprof_cgroup_stage_seconds_total\{dir="([^"]*)",stage="([^"]*)",cgroup="([^"]*)"\} /\1 \2 \3 /p' "$out" |
		awk '{ split($4, a, "."); print $1, $2, $3, a[1] * 1000000000 + substr(a[2] "000000000", 1, 9) }' | sort)
	eq "$name/cgroup-seconds" "$got" "$want"
	got=$(grep -c -E '^skbprof_cgroup_stage_(p50|p99|max)_seconds' "$out")
	eq "$name/no-quantiles" "$got" 0
	# drops: the same bound by drop counts; other sums the rest exactly
	want=$(jq -R -s -r --argjson n "$n" "$drop_rows"' | ('"$keep"') as $k |
		map(select(.cg != "-" and (.cg as $c | $k | index($c) | not))) | group_by(.key) | .[] |
		"\(.[0].key) \(map(.count) | add)"' "$d/drops" | sort)
	got=$(sed -n -E 's/^skbprof_drops_total\{reason="([^"]*)",.*cgroup="other",stage="([^"]*)"\} /\1 \2 /p' "$out" | sort)
	eq "$name/drops-other" "${got:-none}" "${want:-none}"
	eq "$name/drops-total" "$(awk '/^skbprof_drops_total\{/ { s += $NF } END { print s }' "$out")" \
		"$(awk '$1 ~ /^[0-9]+$/ { s += $1 } END { print s }' "$d/drops")"
	eq "$name/drops-cgroups" "$(grep -o '^skbprof_drops_total{.*cgroup="[^"]*"' "$out" | sed 's/.*cgroup=//' | grep -v '^""$' | sort -u | wc -l)" \
		"$(jq -R -s --argjson n "$n" "$drop_rows"' | (map(select(.cg != "-") | .cg) | unique | length) as $all |
		   ('"$keep"' | length) as $k | $k + (if $all > $k then 1 else 0 end)' "$d/drops")"
}
eq fleet/more-cgroups-than-10 "$(awk '/^(rx|tx) / { print $3 }' "$d/cgroups" | sort -u | wc -l | awk '{ print ($1 > 10) }')" 1
fleet default 10
fleet top-n-3 3 --top-n 3
# the budget a fleet's Prometheus plans with: defaults, this host's fixture
"$tool" -r "$d" prom > "$tmp/fleet.prom"
got=$(grep -vc '^#' "$tmp/fleet.prom")
eq fleet/series-at-most-500 "$(( got <= 500 ))" 1
echo "# fleet: $got series, $(wc -c < "$tmp/fleet.prom") bytes"
eq fleet/bytes-at-most-64KiB "$(( $(wc -c < "$tmp/fleet.prom") <= 65536 ))" 1
eq fleet/le-at-most-24 "$(grep -o '^[a-z_]*_bucket{.*}' "$tmp/fleet.prom" | sed 's/,*le="[^"]*"//' | sort | uniq -c | awk '$1 > 24' | wc -l)" 0
# devices: the N (netns, dev) pairs with the most drops keep theirs, the
# rest add up in netns="other",dev="other", counter by counter
devs() {	# N: "netns dev counter value" lines the truth gives
	awk -v n="$1" '!/^#/ { for (i = 3; i <= NF; i++) { tot[$1 " " $2] += $i; v[$1 " " $2, i] = $i }
		for (i = 3; i <= NF; i++) name[i] = hdr[i] }
		/^#/ { for (i = 2; i <= NF; i++) hdr[i - 1] = $i }
		END { for (k in tot) print tot[k], k }' "$d/drops_devices" |
	sort -k1,1nr -k2,2 -k3,3 | awk -v n="$1" -v f="$d/drops_devices" '
		NR <= n { keep[$2 " " $3] = 1 }
		END { while ((getline l < f) > 0) { split(l, a, " ")
			if (a[1] == "#") { for (i = 2; i <= 9; i++) h[i - 1] = a[i]; continue }
			k = a[1] " " a[2]; o = (k in keep) ? k : "other other"
			for (i = 3; i <= 8; i++) s[o, h[i]] += a[i]; ks[o] = 1 }
		  for (k in ks) for (i = 3; i <= 8; i++) if (s[k, h[i]]) print k, h[i], s[k, h[i]] }' | sort
}
for n in 3 10; do
	got=$("$tool" -r "$d" -t $n prom | sed -n -E 's/^skbprof_device_drops_total\{netns="([^"]*)",dev="([^"]*)",counter="([^"]*)"\} /\1 \2 \3 /p' | sort)
	eq "fleet/devices-top-$n" "$got" "$(devs $n)"
done
# drops: netns and dev bounded as cgroup; with -t 0 every one is other
got=$("$tool" -r "$d" -t 0 prom | grep '^skbprof_drops_total{' | grep -o -E '(netns|dev)="[^"]*"' | sort -u | tr '\n' ' ')
eq fleet/drops-netns-dev-top-0 "$got" 'dev="other" netns="other" '
eq fleet/drops-total-top-0 "$("$tool" -r "$d" -t 0 prom | awk '/^skbprof_drops_total\{/ { s += $NF } END { print s }')" \
	"$(awk '$1 ~ /^[0-9]+$/ { s += $1 } END { print s }' "$d/drops")"
fleet top-n-0 0 -t 0
fleet top-n-all -1 --top-n all
SKBPROF_TOP_N=3 fleet env-3 3
eq fleet/option-over-env "$(SKBPROF_TOP_N=3 "$tool" -r "$d" --top-n all prom | grep -c 'cgroup="other"')" 0
eq fleet/env-all "$(SKBPROF_TOP_N=all "$tool" -r "$d" prom | grep -c 'cgroup="other"')" 0
# the cgroup label is the path where it resolves, also among the top N
mkdir -p "$tmp/cgf/top"
sed "s/\b8006\b/$(stat -c %i "$tmp/cgf/top")/" "$fix/fleet/cgroups" > "$d/cgroups"
eq fleet/path-label "$(SKBPROF_CGROUP_ROOT=$tmp/cgf "$tool" -r "$d" prom | grep -c '^skbprof_cgroup_stage_packets_total{.*cgroup="/top"}')" \
	"$(grep -c ' 8006 ' "$fix/fleet/cgroups")"
# and the drops text view (with its clock line: columns padded again)
sed "s/ 8006 / $(stat -c %i "$tmp/cgf/top") /" "$fix/fleet/drops_rows" > "$d/drops_rows"
eq fleet/drops-text-path "$(SKBPROF_CGROUP_ROOT=$tmp/cgf "$tool" -r "$d" drops | awk '$6 == "/top" { print $1 }')" \
	"$(awk '$6 == 8006 { print $1 }' "$fix/fleet/drops")"
cp "$fix"/fleet/{cgroups,drops_rows} "$d/"
# bad values: exit 2, the token named, nothing printed on stdout
for v in x -1 1.5 '' 99999999999999999999 10x ' 3'; do
	t "fleet/bad-top-n-'$v'" 2 "bad top-n '$v' \(a number from 0, or all\)" "$tool" -r "$d" --top-n "$v" prom
	eq "fleet/bad-top-n-'$v'-no-output" "$("$tool" -r "$d" --top-n "$v" prom 2>/dev/null | wc -c)" 0
done
t fleet/bad-env 2 "bad SKBPROF_TOP_N 'ten' \(a number from 0, or all\)" env SKBPROF_TOP_N=ten "$tool" -r "$d" prom

# trace: SIGPIPE and SIGINT end the stream cleanly
yes "12:00:00.000000 cpu0 DROP - x+0x1/0x2 | - | dev -" | head -n 200000 > "$tmp/big" 2>/dev/null
mkdir -p "$tmp/tr" && cp "$tmp/big" "$tmp/tr/trace" && cp "$tmp/big" "$tmp/tr/trace_records"
"$tool" -r "$tmp/tr" -j trace | head -n 2 > /dev/null
eq trace-sigpipe "${PIPESTATUS[0]}" 0
mkfifo "$tmp/tr2" 2>/dev/null; mkdir -p "$tmp/tr3" && mkfifo "$tmp/tr3/trace"
( exec 3> "$tmp/tr3/trace"; echo "12:00:00.000000 cpu0 DROP - x+0x1/0x2 | - | dev -" >&3; sleep 5 ) &
writer=$!
"$tool" -r "$tmp/tr3" trace > "$tmp/tr3.out" &
reader=$!
sleep 1
kill -INT $reader
wait $reader
eq trace-sigint "$?" 0
eq trace-line-buffered "$(wc -l < "$tmp/tr3.out")" 1
kill $writer 2>/dev/null
wait $writer 2>/dev/null

# ---- errors and exit codes --------------------------------------------

mkdir -p "$tmp/root"
printf 'version 9.9.9\nkernel fixture\n' > "$tmp/root/stats"
tool=$top/tools/skbprof
t prints_view 0 '^version 9\.9\.9$' "$tool" --root "$tmp/root" stats
t env_root 0 '^kernel fixture$' env SKBPROF_ROOT="$tmp/root" "$tool" stats
t missing_root 4 "$tmp/none: No such file or directory \(module not loaded\?\)" "$tool" --root "$tmp/none" stats
t missing_root_json 4 '^\{"error":".*No such file.*","errno":2\}$' "$tool" --root "$tmp/none" -j stats
t unknown_view 2 "unknown view 'nosuch'" "$tool" --root "$tmp/root" nosuch
t no_view 2 '^usage:' "$tool" --root "$tmp/root"
t help 0 '^exit codes: 0 success' "$tool" --help
t bad_option 2 '^usage:' "$tool" --bogus
# --version: the tool's from VERSION; the module's (none here, or the
# host's), on the next line; the guest test tool_version_mismatch
# checks the module's and the warning
ver=$(cat "$top/VERSION")
t version 0 "^skbprof ${ver//./\\.}\$" "$tool" --version
t version_module 0 '^module (not loaded|unknown|[0-9].*)$' "$tool" --version
t version_json 0 "^\\{\"tool\":\"${ver//./\\.}\",\"module\":(null|\"[^\"]+\")\\}\$" "$tool" -j --version
t version_arg 2 "option '--version' doesn't allow an argument" "$tool" --version=1
t bad_interval 2 "bad interval 'x'" "$tool" -i x top
t bad_count 2 "bad count '0'" "$tool" -n 0 top
t extra_args 2 'stats: unexpected arguments' "$tool" --root "$tmp/root" stats more
rm "$tmp/root/stats"
t missing_file 1 "stats: No such file" "$tool" --root "$tmp/root" stats
t missing_file_prom 1 "counters: No such file" "$tool" --root "$tmp/root" prom
# permission denied: a root-only file read by nobody
mkdir -p "$tmp/perm" && cp "$fix/6.1/t1/drops_rows" "$tmp/perm/" && chmod 0400 "$tmp/perm/drops_rows"
chmod 0755 "$tmp" "$tmp/perm" && cp "$tool" "$tmp/skbprof" && chmod 0755 "$tmp/skbprof"
t permission 5 "drops_rows: permission denied \(skbprof needs root\)" \
	setpriv --reuid=65534 --regid=65534 --clear-groups "$tmp/skbprof" --root "$tmp/perm" drops
t permission_json 5 '"errno":13' \
	setpriv --reuid=65534 --regid=65534 --clear-groups "$tmp/skbprof" --root "$tmp/perm" -j drops

# a malformed numeric file: an error naming the line and token, no output
mkdir -p "$tmp/bad" && cp "$fix/6.1/t1/"* "$tmp/bad/"
sed -i '3s/ \([0-9]*\):\([0-9]*\):/ \2:\1:/' "$tmp/bad/latency_buckets"
bad=$(sed -n 3p "$tmp/bad/latency_buckets" | awk '{ print $11 }')
t bad_bucket 1 "latency_buckets: line 3: bad bucket '$bad'" "$tool" --root "$tmp/bad" -j latency
t bad_bucket_prom 1 "latency_buckets: line 3: bad bucket '$bad'" "$tool" --root "$tmp/bad" prom
# ... but skbprof_up 0 alone
eq bad_bucket_prom_prints_up_0 "$("$tool" --root "$tmp/bad" prom 2>/dev/null | grep -v '^#')" "skbprof_up 0"
cp "$fix/6.1/t1/latency_buckets" "$tmp/bad/" && sed -i '3s/^\([a-z]* [a-z-]* [0-9]*\) [0-9]*/\1 x/' "$tmp/bad/latency_buckets"
t bad_sum 1 "latency_buckets: line 3: sum 'x' is not a number" "$tool" --root "$tmp/bad" -j latency
sed -i 1d "$tmp/bad/latency_buckets"
t no_bounds 1 "latency_buckets: line 2: a row before the '# bounds=' line" "$tool" --root "$tmp/bad" top -n 1 -i 0.01
rm "$tmp/bad/lifetime_buckets"
t no_lifetime_buckets 1 "lifetime_buckets: No such file" "$tool" --root "$tmp/bad" -j lifetime
# drops_rows without the clock line: drawn as the kernel's drops, times
# since boot
sed 1d "$fix/6.1/t1/drops_rows" > "$tmp/bad/drops_rows"
eq drops_without_clock "$("$tool" --root "$tmp/bad" drops)" "$(sed 1d "$fix/6.1/t1/drops")"
# (JSON: the times since boot, none since the epoch: null, not absent)
eq drops_without_clock_json "$("$tool" --root "$tmp/bad" -j drops | jq -c '[has("clock"), (.drops[0] | has("first_utc"), .first_utc, .last_realtime_ns, (.first_boottime_ns | type))]')" '[false,true,null,null,"number"]'

# control writes: a fake control file; the shim makes writes fail as the
# module's do, and the tool must print the module's last_error
mkdir -p "$tmp/ctl"
printf 'filter clear\nsample 1\nstages all\nlifetime off\ntrace off\nlast_error: none\n' > "$tmp/ctl/control"
t filter_show 0 '^filter clear$' "$tool" --root "$tmp/ctl" filter
t filter_show_json 0 '^\{"filter":null\}$' "$tool" --root "$tmp/ctl" -j filter
t filter_set 0 '' "$tool" --root "$tmp/ctl" filter 'port 5000'
eq filter_written "$(head -n 1 "$tmp/ctl/control")" "filter port 5000"
t filter_set_words 0 '' "$tool" --root "$tmp/ctl" filter proto udp dport 53
eq filter_words_written "$(head -n 1 "$tmp/ctl/control")" "filter proto udp dport 53"
t filter_clear 0 '' "$tool" --root "$tmp/ctl" filter clear
eq filter_clear_written "$(head -n 1 "$tmp/ctl/control")" "filter clear"
t reset 0 '' "$tool" --root "$tmp/ctl" reset
eq reset_written "$(head -n 1 "$tmp/ctl/control")" "reset"
t control_set 0 '' "$tool" --root "$tmp/ctl" control sample 10
eq control_written "$(head -n 1 "$tmp/ctl/control")" "sample 10"
t control_newline 2 'control: the command holds a newline' "$tool" --root "$tmp/ctl" control "$(printf 'sample 1\nreset')"
printf "filter clear\nsample 1\nstages all\nlifetime off\ntrace off\nlast_error: filter: '70000' is not a port (1-65535)\n" > "$tmp/ctl/control"
t filter_rejected 3 "the module rejected 'filter port 70000': filter: '70000' is not a port \(1-65535\)" \
	env LD_PRELOAD="$tmp/failwrite.so" FAILWRITE_ERRNO=22 "$tool" --root "$tmp/ctl" filter 'port 70000'
t filter_rejected_json 3 '^\{"error":"the module rejected .*70000.*","errno":22\}$' \
	env LD_PRELOAD="$tmp/failwrite.so" FAILWRITE_ERRNO=22 "$tool" --root "$tmp/ctl" -j filter 'port 70000'
t filter_eperm 5 'permission denied \(a control write needs root with CAP_SYS_ADMIN\)' \
	env LD_PRELOAD="$tmp/failwrite.so" FAILWRITE_ERRNO=1 "$tool" --root "$tmp/ctl" filter 'port 1'
t filter_newline 2 'newline' "$tool" --root "$tmp/ctl" filter "$(printf 'port 1\nreset')"
t filter_no_module 4 'No such file' "$tool" --root "$tmp/none" filter 'port 1'

# ---- install and the man page -----------------------------------------

make -s -C "$top/tools" install DESTDIR="$tmp/inst" PREFIX=/usr >/dev/null 2>&1
if [ -x "$tmp/inst/usr/sbin/skbprof" ] && [ -f "$tmp/inst/usr/share/man/man8/skbprof.8" ]; then
	ok install
else
	fail install "no sbin/skbprof or share/man/man8/skbprof.8 under DESTDIR"
fi
man_txt=$(MANWIDTH=80 man -l "$top/tools/skbprof.8" 2>"$tmp/man.err")
if [ -s "$tmp/man.err" ]; then fail man-renders "$(head -c 300 "$tmp/man.err")"; else ok man-renders; fi
for w in latency drops procs cgroups lifetime softnet stats control filter reset trace top prom --json --pretty \
	 --interval --count --top-n --root --version SKBPROF_ROOT SKBPROF_TOP_N 'EXIT STATUS' promtool skbprof.rst; do
	grep -q -- "$w" <<< "$man_txt" || missing="${missing:-} $w"
done
if [ -n "${missing:-}" ]; then fail man-mentions "skbprof.8 lacks:$missing"; else ok man-mentions; fi
