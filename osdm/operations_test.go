package osdm

import (
	"reflect"
	"slices"
	"testing"

	"github.com/caddy-osdm/caddy-osdm/internal/osdmspec"
)

// TestSpecOperationsMatchSpec: the table lists exactly the operations of
// the bundled 3.9 spec (plus POST /trips-collections of 3.10), each with
// its operationId, success statuses, request body and Idempotency-Key as
// the spec has them, so that every operation is served or answered 501.
func TestSpecOperationsMatchSpec(t *testing.T) {
	want := osdmspec.Operations(t, osdmspec.V39, specOperation)
	if len(want) < 90 {
		t.Fatalf("read only %d operations of the spec", len(want))
	}
	for _, o := range osdmspec.Operations(t, osdmspec.V310, specOperation) {
		if o.Method == "POST" && o.Path == "/trips-collections" {
			want = append(want, o)
		}
	}
	got := map[string]Operation{}
	for _, op := range SpecOperations() {
		if _, dup := got[op.String()]; dup {
			t.Errorf("%s listed twice", op)
		}
		got[op.String()] = op
	}
	for _, w := range want {
		key := w.Method + " " + w.Path
		op, ok := got[key]
		if !ok {
			t.Errorf("%s (%s) is missing from the table", key, w.ID)
			continue
		}
		delete(got, key)
		op.Success = slices.Sorted(slices.Values(op.Success))
		if !reflect.DeepEqual(op, w) {
			t.Errorf("%s: table has %+v, spec %+v", key, op, w)
		}
	}
	for key := range got {
		t.Errorf("%s is not an operation of the spec", key)
	}
}

// specOperation is an operation as the spec has it, its success statuses
// sorted.
func specOperation(id, method, path string, success []int, body, idempotent bool) Operation {
	return Operation{ID: id, Method: method, Path: path, Success: success, Body: body, Idempotent: idempotent}
}

// TestNamedOperations: the named operations are rows of the table.
func TestNamedOperations(t *testing.T) {
	for _, op := range []Operation{OpCreateOffers, OpCreateBooking, OpGetBooking, OpDeleteBooking, OpCreateFulfillments,
		OpGetFulfillment, OpCreateRefundOffers, OpGetRefundOffer, OpPatchRefundOffer, OpDeleteRefundOffer, OpGetPassenger,
		OpPatchPassenger, OpCreateExchangeOffers, OpCreateExchangeOperation, OpGetExchangeOperation, OpPatchExchangeOperation,
		OpDeleteExchangeOperation} {
		if got, ok := LookupSpec(op.Method, op.Path); !ok || got.ID != op.ID {
			t.Errorf("%s: LookupSpec gives %+v, %v", op, got, ok)
		}
	}
	if _, ok := LookupSpec("GET", "/trip-offers"); ok {
		t.Error("GET /trip-offers is no operation of the spec")
	}
}
