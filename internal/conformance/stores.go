package conformance

import (
	"fmt"

	"github.com/storhfs/storhfs/core/phpjson"
)

// Stores is the open/close bookkeeping of an executor whose engine keeps
// one store instance per collection (README 4.1: at most one open
// instance per collection). The zero value is empty and ready to use;
// embedding it gives an executor its CloseAll.
type Stores[S interface{ Close() error }] struct {
	open map[string]S // collection -> open instance
}

// OpenFunc opens the store of collection coll as the open op asks.
type OpenFunc[S any] func(coll string, op *phpjson.Array) (S, error)

// RunFunc runs the engine op called name against an open store.
type RunFunc[S any] func(store S, name string, op *phpjson.Array) (phpjson.Value, error)

// Dispatch runs op against the store of its "collection": "open" stores
// what open returns (an error if one is already open), "close" closes and
// forgets it, and any other op goes to run with its name and the open
// store (an error if none is open).
func (s *Stores[S]) Dispatch(op *phpjson.Array, open OpenFunc[S], run RunFunc[S]) (phpjson.Value, error) {
	name, coll := OpString(op, "op"), OpString(op, "collection")
	if name == "open" {
		return nil, s.openStore(coll, op, open)
	}
	store, ok := s.open[coll]
	if !ok {
		return nil, fmt.Errorf("executor: collection %q is not open", coll)
	}
	if name == "close" {
		delete(s.open, coll)
		return nil, store.Close()
	}
	return run(store, name, op)
}

func (s *Stores[S]) openStore(coll string, op *phpjson.Array, open OpenFunc[S]) error {
	if _, ok := s.open[coll]; ok {
		return fmt.Errorf("executor: collection %q is already open", coll)
	}
	store, err := open(coll, op)
	if err != nil {
		return err
	}
	if s.open == nil {
		s.open = map[string]S{}
	}
	s.open[coll] = store
	return nil
}

// CloseAll closes every open store, ignoring their errors (the case is
// over), and forgets them.
func (s *Stores[S]) CloseAll() {
	for coll, store := range s.open {
		_ = store.Close()
		delete(s.open, coll)
	}
}
