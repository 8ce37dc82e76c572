// SPDX-License-Identifier: GPL-2.0
/*
 * skbprof top: a live screen of the busiest stages, their percentiles and
 * the top drop locations, per interval (not since load).
 *
 * Every -i seconds the latency_buckets and drops files are read again and
 * the frame shows the differences from the previous read: packets and
 * drops per second, and the interval's p50/p99, computed from the
 * differences of the module's histogram buckets (its percentiles are
 * cumulative).  A percentile is shown as the upper bound of its bucket
 * ("<4.1us"): the interval's value is below it.  A count that went down
 * (reset) counts from zero.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "model.h"
#include "parse.h"
#include "util.h"
#include "views.h"

#define MAX_STAGES	12
#define MAX_DROPS	10

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

struct stage_d {
	const char *dir, *stage;
	uint64_t count, p50, p99;	/* p: upper bound of the bucket, ns */
	double rate;
};

struct drop_d {
	json_object *row;
	uint64_t count;
	double rate;
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static json_object *find_stage(json_object *rows, const char *dir, const char *stage)
{
	size_t i;

	for (i = 0; i < json_object_array_length(rows); i++) {
		json_object *r = json_object_array_get_idx(rows, i);
		const char *d = jget_str(r, "dir"), *s = jget_str(r, "stage");

		if (d && s && !strcmp(d, dir) && !strcmp(s, stage))
			return r;
	}
	return NULL;
}

static uint64_t bucket_count(json_object *h, uint64_t lo)
{
	size_t i;

	for (i = 0; i < json_object_array_length(h); i++) {
		json_object *b = json_object_array_get_idx(h, i);

		if (jget_u64(b, "lo") == lo)
			return jget_u64(b, "count");
	}
	return 0;
}

/* Interval percentiles from bucket differences (nearest rank). */
static void interval_pcts(json_object *now, json_object *prev, bool reset,
			  struct stage_d *s)
{
	json_object *hn = json_object_object_get(now, "histogram");
	json_object *hp = prev && !reset ? json_object_object_get(prev, "histogram") : NULL;
	uint64_t total = 0, seen = 0, r50, r99, d;
	size_t i, n = json_object_array_length(hn);

	for (i = 0; i < n; i++) {
		json_object *b = json_object_array_get_idx(hn, i);
		uint64_t c = jget_u64(b, "count"), p = bucket_count(hp, jget_u64(b, "lo"));

		total += c > p ? c - p : 0;
	}
	s->p50 = s->p99 = 0;
	if (!total)
		return;
	r50 = (50 * total + 99) / 100;
	r99 = (99 * total + 99) / 100;
	for (i = 0; i < n; i++) {
		json_object *b = json_object_array_get_idx(hn, i);
		uint64_t c = jget_u64(b, "count"), p = bucket_count(hp, jget_u64(b, "lo"));

		d = c > p ? c - p : 0;
		if (!d)
			continue;
		seen += d;
		if (!s->p50 && seen >= r50)
			s->p50 = jget_u64(b, "hi");
		if (seen >= r99) {
			s->p99 = jget_u64(b, "hi");
			break;
		}
	}
}

static int by_rate_stage(const void *a, const void *b)
{
	const struct stage_d *x = a, *y = b;

	return x->count < y->count ? 1 : x->count > y->count ? -1 : 0;
}

static int by_p99(const void *a, const void *b)
{
	const struct stage_d *x = a, *y = b;

	return x->p99 < y->p99 ? 1 : x->p99 > y->p99 ? -1 : 0;
}

static int by_rate_drop(const void *a, const void *b)
{
	const struct drop_d *x = a, *y = b;

	return x->count < y->count ? 1 : x->count > y->count ? -1 : 0;
}

/* The columns that change with every drop: count and its times. */
static bool changing(const char *k)
{
	static const char *const cols[] = {
		"count", "first_boottime_ns", "last_boottime_ns",
		"first_realtime_ns", "last_realtime_ns", "first_utc", "last_utc",
		NULL
	};
	int i;

	for (i = 0; cols[i]; i++)
		if (!strcmp(k, cols[i]))
			return true;
	return false;
}

/* Rows match when every column but count and the times is equal. */
static bool same_drop(json_object *a, json_object *b)
{
	json_object_object_foreach(a, k, va) {
		json_object *vb = NULL;

		if (changing(k))
			continue;
		if (!json_object_object_get_ex(b, k, &vb))
			return false;
		if (!va || !vb) {
			if (va != vb)
				return false;
			continue;
		}
		if (strcmp(json_object_get_string(va), json_object_get_string(vb)))
			return false;
	}
	return true;
}

static void fmt_ns(char *buf, size_t size, uint64_t ns)
{
	if (!ns)
		snprintf(buf, size, "-");
	else if (ns < 1000)
		snprintf(buf, size, "<%lluns", (unsigned long long)ns);
	else if (ns < 1000000)
		snprintf(buf, size, "<%.1fus", ns / 1e3);
	else if (ns < 1000000000)
		snprintf(buf, size, "<%.1fms", ns / 1e6);
	else
		snprintf(buf, size, "<%.2fs", ns / 1e9);
}

static const char *str(json_object *o, const char *k)
{
	const char *s = jget_str(o, k);

	return s ? s : "-";
}

/* The softnet counters' columns top shows, as rates. */
static const char *const sn_cols[] = {
	"net_rx", "time_squeeze", "backlog_drops", "ksoftirqd",
};
#define SN_COLS	(sizeof(sn_cols) / sizeof(sn_cols[0]))

/*
 * Per second over the interval, from the "all" rows of softnet_counters
 * now (@sn) and before (@psn); false without them (an older module).
 */
static bool sn_rates(json_object *sn, json_object *psn, double secs,
		     double *rate)
{
	json_object *rows = json_object_object_get(sn, "counters");
	json_object *prows = json_object_object_get(psn, "counters");
	json_object *a, *pa;
	uint64_t v, pv;
	size_t i;

	if (!rows || !prows || !json_object_array_length(rows) ||
	    !json_object_array_length(prows))
		return false;
	a = json_object_array_get_idx(rows, json_object_array_length(rows) - 1);
	pa = json_object_array_get_idx(prows, json_object_array_length(prows) - 1);
	for (i = 0; i < SN_COLS; i++) {
		v = jget_u64(a, sn_cols[i]);
		pv = jget_u64(pa, sn_cols[i]);
		rate[i] = (v < pv ? v : v - pv) / secs;
	}
	return true;
}

/* One interval: its stages and drops with packets, fastest first. */
struct frame {
	struct stage_d *st;
	struct drop_d *dr;
	size_t nst, ndr;
	uint64_t dtotal;
	double secs;
	double snr[SN_COLS];
	bool have_sn;
};

/* The stages of @rows with packets since @prows, into @f->st. */
static void stage_deltas(struct frame *f, json_object *rows, json_object *prows)
{
	size_t i, ns = json_object_array_length(rows);

	for (i = 0; i < ns; i++) {
		json_object *r = json_object_array_get_idx(rows, i), *p;
		struct stage_d *s = &f->st[f->nst];
		uint64_t c = jget_u64(r, "count"), pc;
		bool reset;

		s->dir = str(r, "dir");
		s->stage = str(r, "stage");
		p = find_stage(prows, s->dir, s->stage);
		pc = jget_u64(p, "count");
		reset = c < pc;
		s->count = reset ? c : c - pc;
		if (!s->count)
			continue;
		s->rate = s->count / f->secs;
		interval_pcts(r, p, reset, s);
		f->nst++;
	}
}

/* The drops of @drows since @pdrows, into @f->dr. */
static void drop_deltas(struct frame *f, json_object *drows, json_object *pdrows)
{
	size_t i, j, nd = json_object_array_length(drows);

	for (i = 0; i < nd; i++) {
		json_object *r = json_object_array_get_idx(drows, i), *p = NULL;
		uint64_t c = jget_u64(r, "count"), pc = 0;

		for (j = 0; j < json_object_array_length(pdrows); j++)
			if (same_drop(r, json_object_array_get_idx(pdrows, j))) {
				p = json_object_array_get_idx(pdrows, j);
				break;
			}
		pc = jget_u64(p, "count");
		c = c < pc ? c : c - pc;
		if (!c)
			continue;
		f->dr[f->ndr].row = r;
		f->dr[f->ndr].count = c;
		f->dr[f->ndr].rate = c / f->secs;
		f->dtotal += c;
		f->ndr++;
	}
}

/* --json: @f as one line. */
static int frame_json(const struct frame *f)
{
	json_object *o = json_object_new_object(), *a1 = json_object_new_array();
	json_object *a2 = json_object_new_array();
	struct timespec now;
	uint64_t real;
	char utc[64];
	size_t i;

	/* the frame's wall-clock time, and its interval, in ns */
	clock_gettime(CLOCK_REALTIME, &now);
	real = (uint64_t)now.tv_sec * 1000000000 + now.tv_nsec;
	json_object_object_add(o, "time", utc_time(real, utc, sizeof(utc)) ?
			       json_object_new_string(utc) : NULL);
	json_object_object_add(o, "realtime_ns", json_object_new_uint64(real));
	json_object_object_add(o, "interval_ns",
			       json_object_new_uint64((uint64_t)(f->secs * 1e9 + 0.5)));
	for (i = 0; i < f->nst; i++) {
		json_object *s = json_object_new_object();

		json_object_object_add(s, "dir", json_object_new_string(f->st[i].dir));
		json_object_object_add(s, "stage", json_object_new_string(f->st[i].stage));
		json_object_object_add(s, "count", json_object_new_uint64(f->st[i].count));
		json_object_object_add(s, "rate", json_object_new_double(f->st[i].rate));
		json_object_object_add(s, "p50_below_ns", json_object_new_uint64(f->st[i].p50));
		json_object_object_add(s, "p99_below_ns", json_object_new_uint64(f->st[i].p99));
		json_object_array_add(a1, s);
	}
	for (i = 0; i < f->ndr; i++) {
		json_object *d = json_object_new_object();

		json_object_object_foreach(f->dr[i].row, k, v) {
			if (!strcmp(k, "count"))
				json_object_object_add(d, k, json_object_new_uint64(f->dr[i].count));
			else if (!changing(k))
				json_object_object_add(d, k, json_object_get(v));
		}
		json_object_object_add(d, "rate", json_object_new_double(f->dr[i].rate));
		json_object_array_add(a2, d);
	}
	json_object_object_add(o, "stages", a1);
	json_object_object_add(o, "drops", a2);
	json_object_object_add(o, "drops_count", json_object_new_uint64(f->dtotal));
	json_object_object_add(o, "drops_rate", json_object_new_double(f->dtotal / f->secs));
	if (f->have_sn) {
		json_object *n = json_object_new_object();
		char key[48];

		for (i = 0; i < SN_COLS; i++) {
			snprintf(key, sizeof(key), "%s_rate", sn_cols[i]);
			json_object_object_add(n, key, json_object_new_double(f->snr[i]));
		}
		json_object_object_add(o, "softnet", n);
	}
	/* one frame per line, even with --pretty */
	opt.pretty = false;
	return print_json(o);
}

/* The screen of @f (@first: the first frame). */
static int frame_text(struct frame *f, bool first)
{
	struct stage_d *st = f->st;
	char clock[16], a[32], b[32];
	time_t t = time(NULL);
	size_t i, nst = f->nst;

	strftime(clock, sizeof(clock), "%H:%M:%S", localtime(&t));
	if (isatty(STDOUT_FILENO))
		fputs("\033[H\033[2J", stdout);
	else if (!first)
		putchar('\n');
	printf("skbprof top  %s  interval %.2f s  (per interval, not since load)\n\n",
	       clock, f->secs);
	printf("%-3s %-9s %12s %10s %10s %10s\n", "DIR", "STAGE", "PKTS/S", "COUNT",
	       "P50", "P99");
	for (i = 0; i < nst && i < MAX_STAGES; i++) {
		fmt_ns(a, sizeof(a), st[i].p50);
		fmt_ns(b, sizeof(b), st[i].p99);
		printf("%-3s %-9s %12.1f %10llu %10s %10s\n", st[i].dir, st[i].stage,
		       st[i].rate, (unsigned long long)st[i].count, a, b);
	}
	if (!nst)
		printf("(no packets in this interval)\n");
	qsort(st, nst, sizeof(*st), by_p99);
	if (nst)
		printf("worst p99:");
	for (i = 0; i < nst && i < 3; i++) {
		fmt_ns(a, sizeof(a), st[i].p99);
		printf(" %s %s %s%s", st[i].dir, st[i].stage, a, i + 1 < nst && i < 2 ? "," : "");
	}
	printf("%s\ndrops %.1f/s (%llu)\n", nst ? "\n" : "", f->dtotal / f->secs,
	       (unsigned long long)f->dtotal);
	if (f->ndr)
		printf("%10s %8s %-24s %-10s %s\n", "DROPS/S", "COUNT", "REASON",
		       "PROTO", "LOCATION");
	for (i = 0; i < f->ndr && i < MAX_DROPS; i++)
		printf("%10.1f %8llu %-24s %-10s %s\n", f->dr[i].rate,
		       (unsigned long long)f->dr[i].count, str(f->dr[i].row, "reason"),
		       str(f->dr[i].row, "proto"), str(f->dr[i].row, "location"));
	if (f->have_sn)
		printf("softnet NET_RX %.1f/s, squeezed %.1f/s, backlog drops %.1f/s, in ksoftirqd %.1f/s\n",
		       f->snr[0], f->snr[1], f->snr[2], f->snr[3]);
	return fflush(stdout) ? EXIT_RUNTIME : 0;
}

static int frame(json_object *lat, json_object *plat, json_object *drp,
		 json_object *pdrp, json_object *sn, json_object *psn,
		 double secs, bool first)
{
	json_object *rows = json_object_object_get(lat, "rows");
	json_object *drows = json_object_object_get(drp, "drops");
	struct frame f = { .secs = secs };
	int rc;

	f.have_sn = sn_rates(sn, psn, secs, f.snr);
	f.st = calloc(json_object_array_length(rows) + 1, sizeof(*f.st));
	f.dr = calloc(json_object_array_length(drows) + 1, sizeof(*f.dr));
	if (!f.st || !f.dr) {
		free(f.st);
		free(f.dr);
		return report(EXIT_RUNTIME, ENOMEM, "out of memory");
	}
	stage_deltas(&f, rows, json_object_object_get(plat, "rows"));
	drop_deltas(&f, drows, json_object_object_get(pdrp, "drops"));
	qsort(f.st, f.nst, sizeof(*f.st), by_rate_stage);
	qsort(f.dr, f.ndr, sizeof(*f.dr), by_rate_drop);
	rc = opt.json ? frame_json(&f) : frame_text(&f, first);
	free(f.st);
	free(f.dr);
	return rc;
}

/*
 * The latency_buckets, drops and softnet_counters trees of this moment
 * (*@sn NULL from a module without softnet).
 */
static int snapshot(json_object **lat, json_object **drp, json_object **sn)
{
	int rc;

	rc = read_table_if("softnet_counters", "counters", sn);
	if (rc)
		return rc;

	*lat = read_buckets("latency_buckets", &rc);
	if (!*lat) {
		json_object_put(*sn);
		*sn = NULL;
		return rc;
	}
	*drp = read_drops(&rc);
	if (!*drp) {
		json_object_put(*lat);
		json_object_put(*sn);
		*lat = NULL;
		*sn = NULL;
		return rc;
	}
	return 0;
}

int top_main(void)
{
	json_object *lat = NULL, *drp = NULL, *plat = NULL, *pdrp = NULL;
	json_object *sn = NULL, *psn = NULL;
	struct sigaction sa;
	struct timespec ts;
	double t0, t1;
	long frames = 0;
	int rc;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	rc = snapshot(&plat, &pdrp, &psn);
	if (rc)
		return rc;
	t0 = now_s();
	while (!stop && (!opt.count || frames < opt.count)) {
		ts.tv_sec = (time_t)opt.interval;
		ts.tv_nsec = (long)((opt.interval - ts.tv_sec) * 1e9);
		while (nanosleep(&ts, &ts) && errno == EINTR && !stop)
			;
		if (stop)
			break;
		rc = snapshot(&lat, &drp, &sn);
		if (rc)
			break;
		t1 = now_s();
		rc = frame(lat, plat, drp, pdrp, sn, psn, t1 - t0, frames == 0);
		json_object_put(plat);
		json_object_put(pdrp);
		json_object_put(psn);
		plat = lat;
		pdrp = drp;
		psn = sn;
		t0 = t1;
		frames++;
		if (rc)
			break;
	}
	json_object_put(plat);
	json_object_put(pdrp);
	json_object_put(psn);
	if (rc == EXIT_RUNTIME && errno == EPIPE)
		rc = 0;
	return rc;
}
