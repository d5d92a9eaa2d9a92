package harness

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/caddy-osdm/caddy-osdm/legacy"
)

// MsgID is a legacy messageId unique to the test, the format and step.
func MsgID(t testing.TB, f legacy.Format, step string) string {
	name := strings.NewReplacer("/", "-", " ", "-").Replace(t.Name())
	id := fmt.Sprintf("%s-%s-%s-%d", name, f, step, time.Now().UnixNano()%1e9)
	if len(id) > 64 {
		id = id[len(id)-64:]
	}
	return strings.TrimLeft(id, "-")
}
