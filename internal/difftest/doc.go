// Package difftest is differential testing against the real PHP storh:
// seeded generators of random op sequences per engine (in the op format
// of testdata/conformance/README.md), replayed by PHP through the oracle
// beside the repository (../shared/oracle/conformance/replay.php, which
// writes a corpus case) and then by our engine through
// internal/conformance, which compares every result and the final tree
// byte for byte.
//
// Each engine package runs it from TestDifferential. Environment:
//
//	STORH_DIFF_SEQS  sequences per engine (default: the test's bounded count)
//	STORH_DIFF_SEED  first seed (default 1); sequence i uses seed+i
//	STORH_DIFF_KEEP  where a diverging case is kept (default $TMPDIR/storhfs-difftest)
//	STORH_ORACLE     the oracle directory (default <module>/../shared/oracle)
package difftest
