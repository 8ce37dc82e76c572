/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Host unit tests of skbprof's pure-logic code (built for userspace).
 *
 * Each tests/unit/<name>_test.c is linked with unit_main.c into one
 * program; a test is UNIT_TEST(name) { ... } and fails through EXPECT().
 * The runner prints "ok unit/<file>/<test>" or "FAIL unit/<file>/<test>:
 * <why>" per test, as every other part of `make check` does.
 */
#ifndef SKBPROF_UNIT_H
#define SKBPROF_UNIT_H

#include <stdio.h>

struct unit_test {
	const char *name;
	void (*fn)(void);
};

#define UNIT_TEST(name)							\
	static void name(void);						\
	static const struct unit_test __unit_##name			\
	__attribute__((used, section("unit_tests"), aligned(8))) =	\
		{ #name, name };					\
	static void name(void)

void unit_fail(const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
int unit_failed(void);

#define EXPECT(cond, fmt, ...)						\
	do {								\
		if (!(cond))						\
			unit_fail(__FILE__, __LINE__, "%s: " fmt, #cond, \
				  ##__VA_ARGS__);			\
	} while (0)

#define EXPECT_EQ(a, b)							\
	do {								\
		long long __a = (long long)(a), __b = (long long)(b);	\
		if (__a != __b)						\
			unit_fail(__FILE__, __LINE__, "%s == %lld, want %s == %lld", \
				  #a, __a, #b, __b);			\
	} while (0)

#endif
