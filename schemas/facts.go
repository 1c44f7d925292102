package schemas

// Facts about a lab that more than one layer needs (the rendered scripts
// and the runtime), computed here once.

// ResultVersion is where a bounded job's result shows in ClickHouse and an
// expression over it that changes with each run: max of the ClickHouse
// store's version column, else of a date or time key column, else
// count(). `stream-lab batch` and `labgen batch` both report it. ok is
// false when the job's table has no ClickHouse store in this stack.
func (l *Lab) ResultVersion(j *Job) (table, expr string, ok bool) {
	t := l.Table(j.Writes)
	if t == nil || l.Stack.ClickHouse == nil {
		return "", "", false
	}
	ch := t.Store(StoreClickHouse)
	if ch == nil {
		return "", "", false
	}
	table = ch.Name
	if ch.Database != "" {
		table = ch.Database + "." + ch.Name
	}
	if ch.Version != "" {
		return table, "max(" + ch.Version + ")", true
	}
	for _, k := range t.Key {
		for _, c := range t.Columns {
			if c.Name == k && (c.Type.Kind == TypeTimestamp || c.Type.Kind == TypeDate) {
				return table, "max(" + k + ")", true
			}
		}
	}
	return table, "count()", true
}
