package fsutil

import "golang.org/x/sys/unix"

// SharedFS reports whether dir is on a file system that other hosts may
// write too, or whose changes inotify does not report: a network or
// cluster file system, or FUSE (GlusterFS, CephFS's and every other FUSE
// client, sshfs, ...). Unknown magic numbers count as local.
func SharedFS(dir string) bool {
	var st unix.Statfs_t
	if err := unix.Statfs(dir, &st); err != nil {
		return false
	}
	return sharedMagic[uint32(st.Type)]
}

// sharedMagic are the statfs(2) f_type values of network, cluster and
// FUSE file systems (linux/magic.h and the file systems' own sources).
var sharedMagic = map[uint32]bool{
	unix.FUSE_SUPER_MAGIC:  true, // GlusterFS, ceph-fuse, sshfs, s3fs, ...
	unix.NFS_SUPER_MAGIC:   true,
	unix.SMB_SUPER_MAGIC:   true,
	unix.SMB2_SUPER_MAGIC:  true,
	unix.CIFS_SUPER_MAGIC:  true,
	unix.CEPH_SUPER_MAGIC:  true,
	unix.V9FS_MAGIC:        true,
	unix.AFS_FS_MAGIC:      true,
	unix.AFS_SUPER_MAGIC:   true,
	unix.CODA_SUPER_MAGIC:  true,
	unix.OCFS2_SUPER_MAGIC: true,
	0x01161970:             true, // GFS2
	0x0bd00bd0:             true, // Lustre
	0x47504653:             true, // GPFS (IBM Storage Scale)
	0x19830326:             true, // BeeGFS
	0x013111a8:             true, // IBRIX
}
