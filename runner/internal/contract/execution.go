package contract

import "reflect"

// TaskSupport is a tool's execution.taskSupport, with the spec's default
// (absent: "forbidden").
func (t Tool) TaskSupport() string {
	if s, ok := t.Execution["taskSupport"].(string); ok && s != "" {
		return s
	}
	return "forbidden"
}

// execution grades a tool's change of taskSupport, icons and _meta. A
// client that calls the tool plainly breaks when the tool comes to require
// a task (its plain call is refused with -32601); one that calls it as a
// task breaks when tasks are withdrawn (forbidden: the task call is
// refused). Allowing what was refused is compatible. Icons and _meta are
// presentation: info.
func (d *differ) execution(base string, old, new Tool) {
	a, b := old.TaskSupport(), new.TaskSupport()
	if a != b {
		sev := Compatible
		if b == "required" || b == "forbidden" {
			sev = Breaking
		}
		d.add(sev, KindTaskSupport, base+"/execution/taskSupport", a, b)
	}
	if !reflect.DeepEqual(old.Icons, new.Icons) {
		d.add(Info, KindIcons, base+"/icons", presence(len(old.Icons) > 0, old.Icons), presence(len(new.Icons) > 0, new.Icons))
	}
	if !reflect.DeepEqual(old.Meta, new.Meta) {
		d.add(Info, KindMeta, base+"/_meta", presence(len(old.Meta) > 0, old.Meta), presence(len(new.Meta) > 0, new.Meta))
	}
}

// presence is v when there is one, or the marker of no value.
func presence(ok bool, v any) any {
	if !ok {
		return none
	}
	return v
}
