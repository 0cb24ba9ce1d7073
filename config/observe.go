package config

// checkUnchanged checks what the schema cannot say of expect.unchanged: it
// names an observe step earlier in the same scenario, which runs in order
// (the observation is that scenario's, kept while it runs).
func checkUnchanged(before []Step, st *Step, e *node, parallel bool, path func() string, errs *errList) {
	if st.Expect.Unchanged == "" {
		return
	}
	at := e.value("unchanged").pos
	if parallel {
		errs.at(at, "%s: a parallel scenario's steps cannot compare with each other's observations", path())
		return
	}
	for k := range before {
		if before[k].Kind == KindObserve && before[k].Observe == st.Expect.Unchanged {
			return
		}
	}
	errs.at(at, "%s: no earlier observe step of this scenario is named %s", path(), quote(st.Expect.Unchanged))
}
