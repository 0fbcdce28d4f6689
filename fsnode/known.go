package fsnode

import (
	"container/list"
	"sync"
	"sync/atomic"

	"github.com/hanwen/go-fuse/v2/fs"
)

// maxKnown is how many looked-up names the server keeps an inode for
// before it asks the kernel to forget the oldest. go-fuse keeps an Inode
// (about 300 bytes with the node and its path) for every name the kernel
// has looked up, until the kernel forgets it, and the kernel keeps names
// cached as long as memory allows: `find` over a webgrind profile of
// 25,000 functions (a folder of two files each) kept 25 MB of them, and a
// profile's callers/ folder holds a file per procedure. A name
// invalidated is looked up again when next used (one round trip).
const maxKnown = 8192

// known holds the names the kernel looked up, oldest at the back, and
// invalidates (fs.Inode.NotifyEntry) those past maxKnown: the kernel then
// drops the entry and FORGETs its inode (node.OnForget takes it out).
// Invalidations are sent from a goroutine of their own: the kernel takes
// the parent directory's lock for one, which a lookup being answered may
// hold.
type known struct {
	mu    sync.Mutex
	order list.List     // of *node
	wake  chan struct{} // the list passed maxKnown
	done  chan struct{} // closed when the server ends
}

// liveNodes counts the nodes of every mount of the process that the
// kernel looked up and has not forgotten (for tests).
var liveNodes atomic.Int64

func newKnown() *known {
	k := &known{wake: make(chan struct{}, 1), done: make(chan struct{})}
	k.order.Init()
	go k.invalidate()
	return k
}

func (k *known) invalidate() {
	for {
		select {
		case <-k.wake:
		case <-k.done:
			return
		}
		for {
			k.mu.Lock()
			if k.order.Len() <= maxKnown {
				k.mu.Unlock()
				break
			}
			old := k.order.Remove(k.order.Back()).(*node)
			old.elem = nil
			parent, name := old.parent, old.name
			k.mu.Unlock()
			parent.NotifyEntry(name) // ENOENT when the kernel forgot it already
		}
	}
}

// add records that the kernel looked up n, child name of parent.
func (k *known) add(n *node, parent *fs.Inode, name string) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if n.elem != nil {
		k.order.MoveToFront(n.elem)
		return
	}
	if n.parent == nil {
		liveNodes.Add(1)
	}
	n.elem = k.order.PushFront(n)
	n.parent, n.name = parent, name
	if k.order.Len() > maxKnown {
		select {
		case k.wake <- struct{}{}:
		default: // woken already
		}
	}
}

// forget takes n out when the kernel forgot it.
func (k *known) forget(n *node) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if n.parent != nil {
		liveNodes.Add(-1)
		n.parent = nil
	}
	if n.elem != nil {
		k.order.Remove(n.elem)
		n.elem = nil
	}
}
