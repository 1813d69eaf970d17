package schedule

import "container/heap"

// readyQueue holds the jobs whose dependencies are done, in the order the
// dispatcher considers them: highest rank (longest predicted path to the
// end) first, then job ID. It keeps one heap per slot class, so a full
// class costs nothing to skip, and parks jobs that wait for their storage
// area until that area frees up. Each start is O(log n), which keeps a
// 10,000-table dispatch (about 20,000 jobs) fast; re-sorting and scanning
// one flat list at every event was quadratic.
//
// Entries are removed lazily: a job that stopped being ready (a job added
// while the graph runs named it in Before) or that already started is
// dropped when it reaches the top.
type readyQueue struct {
	rank   map[string]int64
	bySlot map[Slot]*jobHeap
	slots  []Slot              // the classes in first-seen order, for a stable scan
	area   map[string]*jobHeap // parked: ready, but their area is busy
}

func newReadyQueue(rank map[string]int64) *readyQueue {
	return &readyQueue{rank: rank, bySlot: map[Slot]*jobHeap{}, area: map[string]*jobHeap{}}
}

func (q *readyQueue) push(j *Job) {
	h := q.bySlot[j.Slot]
	if h == nil {
		h = &jobHeap{rank: q.rank}
		q.bySlot[j.Slot] = h
		q.slots = append(q.slots, j.Slot)
	}
	heap.Push(h, j)
}

// park sets j aside until its area frees up.
func (q *readyQueue) park(j *Job) {
	h := q.area[j.Area]
	if h == nil {
		h = &jobHeap{rank: q.rank}
		q.area[j.Area] = h
	}
	heap.Push(h, j)
}

// unpark returns up to n of the best jobs parked on area to the queue
// (n < 0: all of them).
func (q *readyQueue) unpark(area string, n int) {
	h := q.area[area]
	for h != nil && h.Len() > 0 && n != 0 {
		q.push(heap.Pop(h).(*Job))
		n--
	}
}

// best returns the highest-ranked job at the top of a class that open
// says may start one more job, removing the stale entries it meets (live
// says whether a job is still waiting to start). It does not pop it.
func (q *readyQueue) best(open func(Slot) bool, live func(*Job) bool) *Job {
	var top *Job
	for _, s := range q.slots {
		h := q.bySlot[s]
		if !open(s) {
			continue
		}
		for h.Len() > 0 && !live(h.jobs[0]) {
			heap.Pop(h)
		}
		if h.Len() > 0 && (top == nil || h.before(h.jobs[0], top)) {
			top = h.jobs[0]
		}
	}
	return top
}

// count is the number of live jobs of class s (live as for best).
func (q *readyQueue) count(s Slot, live func(*Job) bool) int {
	n := 0
	if h := q.bySlot[s]; h != nil {
		for _, j := range h.jobs {
			if live(j) {
				n++
			}
		}
	}
	return n
}

// pop removes j, which best just returned.
func (q *readyQueue) pop(j *Job) { heap.Pop(q.bySlot[j.Slot]) }

// jobHeap orders jobs by rank (highest first), then ID. The rank is
// looked up once, when a job enters the heap.
type jobHeap struct {
	jobs  []*Job
	ranks []int64
	rank  map[string]int64
}

func (h *jobHeap) before(a, b *Job) bool {
	ra, rb := h.rank[a.ID], h.rank[b.ID]
	if ra != rb {
		return ra > rb
	}
	return a.ID < b.ID
}

func (h *jobHeap) Len() int { return len(h.jobs) }
func (h *jobHeap) Less(a, b int) bool {
	if h.ranks[a] != h.ranks[b] {
		return h.ranks[a] > h.ranks[b]
	}
	return h.jobs[a].ID < h.jobs[b].ID
}
func (h *jobHeap) Swap(a, b int) {
	h.jobs[a], h.jobs[b] = h.jobs[b], h.jobs[a]
	h.ranks[a], h.ranks[b] = h.ranks[b], h.ranks[a]
}
func (h *jobHeap) Push(x any) {
	j := x.(*Job)
	h.jobs = append(h.jobs, j)
	h.ranks = append(h.ranks, h.rank[j.ID])
}
func (h *jobHeap) Pop() any {
	n := len(h.jobs) - 1
	j := h.jobs[n]
	h.jobs[n] = nil
	h.jobs, h.ranks = h.jobs[:n], h.ranks[:n]
	return j
}
