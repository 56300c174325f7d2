package jtrace

// The captured form of a host value: nil, bool, int64, float64, string, []any and *object, an
// object that keeps its keys in order (JSON objects keep theirs, and a reader of the stored event
// sees them as the host wrote them).
type object struct {
	keys  []string
	vals  []any
	index map[string]int
}

func newObject(capacity int) *object {
	return &object{keys: make([]string, 0, capacity), vals: make([]any, 0, capacity)}
}

func (o *object) find(key string) int {
	if o.index != nil {
		if i, ok := o.index[key]; ok {
			return i
		}
		return -1
	}
	for i, k := range o.keys {
		if k == key {
			return i
		}
	}
	return -1
}

// set replaces a key's value in place or adds the key at the end, as a JavaScript object does.
func (o *object) set(key string, value any) {
	if i := o.find(key); i >= 0 {
		o.vals[i] = value
		return
	}
	o.keys = append(o.keys, key)
	o.vals = append(o.vals, value)
	if o.index != nil {
		o.index[key] = len(o.keys) - 1
	} else if len(o.keys) > 16 {
		o.index = make(map[string]int, len(o.keys)*2)
		for i, k := range o.keys {
			o.index[k] = i
		}
	}
}

func (o *object) get(key string) (any, bool) {
	if i := o.find(key); i >= 0 {
		return o.vals[i], true
	}
	return nil, false
}

func (o *object) remove(key string) {
	i := o.find(key)
	if i < 0 {
		return
	}
	o.keys = append(o.keys[:i], o.keys[i+1:]...)
	o.vals = append(o.vals[:i], o.vals[i+1:]...)
	if o.index != nil {
		o.index = make(map[string]int, len(o.keys))
		for j, k := range o.keys {
			o.index[k] = j
		}
	}
}

func (o *object) len() int { return len(o.keys) }
