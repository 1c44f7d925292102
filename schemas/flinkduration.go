package schemas

import "fmt"

// FlinkDuration turns "1h" into Flink's "1 h" style; Flink also reads Go's
// "10s" and "5m", but not "1h30m".
func FlinkDuration(d string) string {
	dur := ParseDuration(d)
	switch {
	case dur%3600e9 == 0:
		return fmt.Sprintf("%d h", dur/3600e9)
	case dur%60e9 == 0:
		return fmt.Sprintf("%d min", dur/60e9)
	case dur%1e9 == 0:
		return fmt.Sprintf("%d s", dur/1e9)
	}
	return fmt.Sprintf("%d ms", dur/1e6)
}
