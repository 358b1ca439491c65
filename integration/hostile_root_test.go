package integration

import (
	"crypto/sha256"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A storage root is writable by the PHP application's user, the mount is
// usually served by root: a symlink planted in ROOT must never be
// followed, or that user could read (and write) whatever root can. Every
// kind of planted link is tried here, read by root and, through
// --allow-other, by an unprivileged user; nothing outside ROOT may be
// shown or changed.
func TestHostileRootSymlinks(t *testing.T) {
	requireFuse(t, "setpriv", "grep")
	root := demoRoot(t, 12)
	outside := t.TempDir()
	marker := "TOPSECRET-" + newID(t)
	p := planter{t: t, root: root, outside: outside, marker: marker}

	recID := storedIDs(t, root, "pages")[0]
	p.secretFile("shadow", marker+"\n")
	if err := os.Remove(storedPath(root, "pages", recID)); err != nil {
		t.Fatal(err)
	}
	p.link("pages/data/"+recID[24:26]+"/"+recID+".jsonc", "shadow", true) // a record -> /etc/shadow

	bucketID := p.idInNewBucket("notes")
	bucket := bucketID[24:26]
	p.secretRecord("bucket/"+bucketID+".jsonc", bucketID)
	p.link("notes/data/"+bucket, "bucket", false) // a bucket

	collID := newID(t)
	p.secretRecord("coll/data/"+collID[24:26]+"/"+collID+".jsonc", collID)
	p.mkdir("coll/.storh")
	p.link("evil", "coll", false) // a collection
	if err := os.Mkdir(root+"/evil2", 0o777); err != nil {
		t.Fatal(err)
	}
	p.link("evil2/data", "coll/data", false)                            // a data/ folder
	p.moveOut("app/users/.storh/indexes", "indexes")                    // .storh/indexes (index files, manifest)
	p.moveOut("events/segments/seg-000001.ndjson", "seg-000001.ndjson") // a segment
	p.moveOut("jobs/queue.log", "queue.log")                            // a queue log
	segmentID := strings.Split(string(readFile(t, outside+"/seg-000001.ndjson")), `"id":"`)[1][:36]
	before := outsideDigest(t, outside)

	// ROOT itself may be a symlink: the operator's choice, resolved once.
	rootLink := filepath.Join(t.TempDir(), "root-link")
	if err := os.Symlink(root, rootLink); err != nil {
		t.Fatal(err)
	}
	m := startMount(t, rootLink, "--allow-other")
	openToOthers(t, m.dir)
	nobody := func(args ...string) (string, error) {
		return run("", "setpriv", append([]string{"--reuid=65534", "--regid=65534", "--clear-groups"}, args...)...)
	}

	// Control: the mount and a plain record are reachable for both users.
	plain := storedIDs(t, root, "pages")[1]
	runOK(t, "", "cat", m.path("pages", plain+".jsonc"))
	if out, err := nobody("cat", m.path("pages", plain+".jsonc")); err != nil {
		t.Fatalf("uid 65534 cannot read a plain record through --allow-other: %v\n%s", err, out)
	}

	// Not shown.
	if got := runOK(t, "", "ls", m.dir); strings.Join(strings.Fields(got), " ") != "app events notes pages" {
		t.Errorf("ls MOUNT = %q: a symlinked collection, data/ or queue.log must not be shown", got)
	}
	for coll, id := range map[string]string{"pages": recID, "notes": bucketID} {
		if got := runOK(t, "", "ls", m.path(coll)); strings.Contains(got, id) {
			t.Errorf("ls %s shows %s, reached through a symlink", coll, id)
		}
	}

	// Used: fails with ELOOP, for root and for uid 65534, and never shows the target.
	refused := []string{
		"pages/" + recID + ".jsonc",
		"notes/" + bucketID + ".jsonc",
		"evil/" + collID + ".jsonc",
		"evil2/" + collID + ".jsonc",
		"jobs/pending.ndjson",
		"events/segments/seg-000001.ndjson",
	}
	for _, rel := range refused {
		for who, cat := range map[string]func(...string) (string, error){
			"root": func(a ...string) (string, error) { return run("", a[0], a[1:]...) }, "uid 65534": nobody,
		} {
			out, err := cat("cat", m.path(rel))
			if err == nil || strings.Contains(out, marker) || strings.Contains(out, segmentID) {
				t.Errorf("cat %s as %s: err %v, output %q; want a failure that shows nothing", rel, who, err, out)
			}
		}
	}
	for _, rel := range []string{"pages/" + recID + ".jsonc", "notes/" + bucketID + ".jsonc", "evil", "evil2", "jobs"} {
		if out, _ := run("", "stat", m.path(rel)); !strings.Contains(out, "Too many levels of symbolic links") {
			t.Errorf("stat %s: %q, want ELOOP", rel, out)
		}
	}
	if out, _ := run("", "cat", m.path("events", "records.ndjson")); strings.Contains(out, segmentID) {
		t.Errorf("records.ndjson shows a record of the symlinked segment:\n%s", out)
	}
	if out, _ := run("", "grep", "-r", marker, m.dir); strings.Contains(out, marker) {
		t.Errorf("grep -r finds the secret through the mount:\n%s", out)
	}

	// Written: refused, nothing lands outside ROOT.
	newInBucket := p.idInBucket(bucket)
	src := filepath.Join(t.TempDir(), "rec.jsonc")
	writeFile(t, src, fmt.Sprintf(`{"id":"%s","data":{}}`+"\n", newInBucket))
	if out, err := run("", "cp", src, m.path("notes", newInBucket+".jsonc")); err == nil {
		t.Errorf("a write into a symlinked bucket succeeded\n%s", out)
	}
	userID := newID(t)
	writeFile(t, src, fmt.Sprintf(`{"id":"%s","data":{"email":"x@y"}}`+"\n", userID))
	if out, err := run("", "cp", src, m.path("app", "users", userID+".jsonc")); err == nil {
		t.Errorf("a write into a collection with symlinked indexes succeeded\n%s", out)
	}
	if _, err := os.Stat(storedPath(root, "app/users", userID)); err == nil {
		t.Errorf("a record was stored although its indexes could not be updated")
	}
	if after := outsideDigest(t, outside); after != before {
		t.Errorf("files outside ROOT changed:\nbefore %s\nafter  %s", before, after)
	}

	// Logged, once per path.
	recPath := filepath.Join(root, "pages", "data", recID[24:26], recID+".jsonc")
	m.logShows(recPath + ": refused")
	if n := strings.Count(m.log.String(), recPath+": refused"); n != 1 {
		t.Errorf("the refused record is logged %d times, want once:\n%s", n, m.log)
	}

	// The maintenance commands refuse the same links, naming the path.
	for _, args := range [][]string{
		{"get", root, "pages", recID},
		{"get", rootLink, "notes", bucketID},
		{"stats", root, "evil"},
		{"export", root, "evil", filepath.Join(t.TempDir(), "out.jsonl")},
	} {
		out, err := run("", storhfsBin, args...)
		if err == nil || strings.Contains(out, marker) || !strings.Contains(out, "symlink") {
			t.Errorf("storhfs %s: err %v, output %q; want a failure naming the symlink", strings.Join(args, " "), err, out)
		}
	}
	if after := outsideDigest(t, outside); after != before {
		t.Errorf("the commands changed files outside ROOT")
	}
}

// planter plants files outside ROOT and symlinks to them inside it.
type planter struct {
	t                     *testing.T
	root, outside, marker string
}

func (p planter) mkdir(rel string) {
	if err := os.MkdirAll(filepath.Join(p.outside, rel), 0o755); err != nil {
		p.t.Fatal(err)
	}
}

// secretFile writes a file outside ROOT that only root may read.
func (p planter) secretFile(rel, content string) {
	p.mkdir(filepath.Dir(rel))
	if err := os.WriteFile(filepath.Join(p.outside, rel), []byte(content), 0o600); err != nil {
		p.t.Fatal(err)
	}
}

// secretRecord writes a valid record holding the marker outside ROOT.
func (p planter) secretRecord(rel, id string) {
	p.secretFile(rel, fmt.Sprintf(`{"id":"%s","data":{"secret":"%s"}}`+"\n", id, p.marker))
}

// link makes ROOT/rel a symlink to outside/target (absolute, or relative
// with enough ".." to climb out of ROOT).
func (p planter) link(rel, target string, relative bool) {
	dst := filepath.Join(p.outside, target)
	if relative {
		var err error
		if dst, err = filepath.Rel(filepath.Dir(filepath.Join(p.root, rel)), dst); err != nil {
			p.t.Fatal(err)
		}
	}
	if err := os.Symlink(dst, filepath.Join(p.root, rel)); err != nil {
		p.t.Fatal(err)
	}
}

// moveOut moves ROOT/rel outside ROOT and leaves a symlink to it.
func (p planter) moveOut(rel, target string) {
	if err := os.Rename(filepath.Join(p.root, rel), filepath.Join(p.outside, target)); err != nil {
		p.t.Fatal(err)
	}
	p.link(rel, target, false)
}

// idInNewBucket is a new id whose bucket collection does not have yet.
func (p planter) idInNewBucket(collection string) string {
	for {
		id := newID(p.t)
		if _, err := os.Lstat(filepath.Join(p.root, collection, "data", id[24:26])); os.IsNotExist(err) {
			return id
		}
	}
}

// idInBucket is a new id in bucket b (ids differ only in their random tail).
func (p planter) idInBucket(b string) string {
	id := newID(p.t)
	return id[:24] + b + id[26:]
}

// outsideDigest is a digest of every path (directories too), mode and
// content below dir.
func outsideDigest(t *testing.T, dir string) string {
	t.Helper()
	h := sha256.New()
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		fmt.Fprintf(h, "%s %v %d\n", path, fi.Mode(), fi.Size())
		if fi.Mode().IsRegular() {
			h.Write(readFile(t, path))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("%x", h.Sum(nil))
}

// openToOthers lets other users reach the mount point (t.TempDir makes
// its directories 0700).
func openToOthers(t *testing.T, mnt string) {
	t.Helper()
	for dir := filepath.Dir(mnt); dir != os.TempDir() && dir != "/"; dir = filepath.Dir(dir) {
		if err := os.Chmod(dir, 0o755); err != nil {
			t.Fatal(err)
		}
	}
}
