package harness

// WalkHandlers calls f for every JSON object with a "handler" key.
func WalkHandlers(v any, f func(map[string]any)) {
	switch v := v.(type) {
	case map[string]any:
		if _, ok := v["handler"]; ok {
			f(v)
		}
		for _, child := range v {
			WalkHandlers(child, f)
		}
	case []any:
		for _, child := range v {
			WalkHandlers(child, f)
		}
	}
}
