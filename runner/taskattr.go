package runner

// Server requests during a task: a task step has a request of its own in
// flight only while one of its polls (tasks/get, tasks/result) waits for
// an answer, and over stdio the server may ask the client something
// between two polls. The task is still going on then, so from the task's
// creation to its end its step counts as in flight (holdTask): a server
// request that comes while it is the only step in flight is listed with
// it; while other steps are in flight too, "during" names them (see
// attribute). Over Streamable HTTP a request on a poll's own stream
// belongs to it already.

// holdTask keeps t in flight on c until the returned func is called.
func (c *tapConn) holdTask(t *tap) (release func()) {
	if c == nil || t == nil {
		return func() {}
	}
	c.mu.Lock()
	if c.tasks == nil {
		c.tasks = map[*tap]int{}
	}
	c.tasks[t]++
	c.mu.Unlock()
	return func() {
		c.mu.Lock()
		if c.tasks[t]--; c.tasks[t] <= 0 {
			delete(c.tasks, t)
		}
		c.mu.Unlock()
	}
}
