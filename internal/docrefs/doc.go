// Package docrefs holds the test that keeps the repository's references to
// its format documents true: every Go comment that names a document names
// one in the repository (docs/format, docs/cli.md, ...), every section it
// cites there exists, and nothing points at the former out-of-tree format
// text or at other files beside the repository, except ../shared/oracle,
// the PHP oracle the differential tests drive.
package docrefs
