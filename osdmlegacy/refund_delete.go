package osdmlegacy

import (
	"context"
	"net/http"

	"github.com/caddy-osdm/caddy-osdm/osdm"
)

// deleteRefundOffer serves DELETE .../refund-offers/{rid}: a proposed
// refund offer is dropped (204, also when the booking holds no such offer,
// as the spec says: it is not held either way); a confirmed one, or one
// whose confirmation is under way, cannot be (409).
func (rf *refunds) deleteRefundOffer(ctx context.Context, c *call) *Answer {
	if _, a := rf.bookings.bookingOf(ctx, c); a != nil {
		return a
	}
	rid := c.params[osdm.ParamRefundOfferID]
	_, err := rf.bookings.updateBooking(ctx, c.params[osdm.ParamBookingID], func(r *bookingRecord) error {
		for i, ro := range r.RefundOffers {
			if ro.ID != rid {
				continue
			}
			if ro.Status == osdm.RefundConfirmed {
				return &errRefused{osdm.NewProblem(http.StatusConflict, osdm.CodeOperationNotPermitted,
					"refund offer "+rid+" was confirmed; a confirmed refund cannot be deleted")}
			}
			if r.Pending != nil && r.Pending.RefundOfferID == rid {
				return &errRefused{osdm.NewProblem(http.StatusConflict, osdm.CodeOperationNotPermitted,
					"refund offer "+rid+" is being confirmed; it cannot be deleted")}
			}
			r.RefundOffers = append(r.RefundOffers[:i:i], r.RefundOffers[i+1:]...)
			return nil
		}
		return errNoChange
	})
	if p := refusedBy(err); p != nil {
		return problemAnswer(p)
	}
	if err != nil {
		return rf.storeFailed(c, err)
	}
	return rf.noContent(c)
}
