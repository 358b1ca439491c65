package fusefs

import (
	"sync"
	"testing"
	"time"
)

func TestNotifierRunsInOrderOutsideTheCaller(t *testing.T) {
	var n notifier
	var mu sync.Mutex
	var got []int
	all := make(chan struct{})
	for i := 0; i < 100; i++ {
		n.send(func() {
			mu.Lock()
			got = append(got, i)
			if len(got) == 100 {
				close(all)
			}
			mu.Unlock()
		})
	}
	select {
	case <-all:
	case <-time.After(10 * time.Second):
		t.Fatal("queued notifications not sent")
	}
	for i, v := range got {
		if v != i {
			t.Fatalf("notification %d sent as %d: order not kept", i, v)
		}
	}
	if !n.stop(10 * time.Second) {
		t.Fatal("stop of an idle notifier reports one in flight")
	}
}

func TestNotifierStopWaitsForTheOneInFlightAndDropsTheRest(t *testing.T) {
	var n notifier
	entered, release := make(chan struct{}), make(chan struct{})
	returned := make(chan struct{})
	n.send(func() {
		close(entered)
		<-release
		close(returned)
	})
	n.send(func() { t.Error("a queued notification ran after stop") })
	<-entered
	stopped := make(chan bool)
	go func() { stopped <- n.stop(10 * time.Second) }()
	select {
	case <-stopped:
		t.Fatal("stop returned while a notification was in flight")
	case <-time.After(50 * time.Millisecond):
	}
	close(release)
	if !<-stopped {
		t.Fatal("stop reports a notification in flight after it returned")
	}
	select {
	case <-returned:
	default:
		t.Fatal("stop returned before the notification in flight did")
	}
	n.send(func() { t.Error("a notification sent after stop ran") })
	time.Sleep(10 * time.Millisecond)
}

func TestNotifierStopIsBounded(t *testing.T) {
	var n notifier
	entered, release := make(chan struct{}), make(chan struct{})
	defer close(release)
	n.send(func() { close(entered); <-release })
	<-entered
	if n.stop(20 * time.Millisecond) {
		t.Fatal("stop reports none in flight while one is blocked")
	}
}
