package legacysandbox

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/caddy-osdm/caddy-osdm/legacy"
)

// trip is a journey the sandbox sells: the leg found in the schedule, the
// run whose places it takes and the price of the places asked.
type trip struct {
	leg   Leg
	run   runKey
	price int64 // cents, all places
}

// check finds the journey of an AvailabilityRequest or BookingRequest, or
// returns the reply that refuses it: INVALID_MESSAGE for an unknown tariff
// code, a ReplacementProposal for a foreign train, TRAIN_NOT_FOUND, or
// NO_AVAILABILITY for a train that has left. Callers hold s.mu.
func (s *Sandbox) check(now time.Time, h legacy.ReplyHeader, j legacy.Journey, p legacy.PlaceRequest) (*trip, legacy.Reply) {
	for _, t := range p.Tariffs {
		if _, ok := s.cfg.Tariffs[t.Code]; !ok {
			return nil, legacy.NewNegativeReply(h, legacy.CodeInvalidMessage, fmt.Sprintf(
				"tariff code %d is not in the tariff table of reservation system %d, which takes %s",
				t.Code, s.cfg.System, s.tariffCodes()))
		}
	}
	if f, ok := s.foreign[j.TrainNumber]; ok {
		return nil, &legacy.ReplacementProposal{Header: h, Alternatives: []legacy.Alternative{{
			ReservationSystem: f.System, Operator: f.Operator, TrainNumber: f.Train, Priority: 1,
		}}}
	}
	leg, err := s.cfg.Schedule.Leg(j.TrainNumber, j.DepartureDate, j.From, j.To)
	if err != nil {
		return nil, legacy.NewNegativeReply(h, legacy.CodeTrainNotFound, err.Error())
	}
	if !leg.Departure.After(now) {
		return nil, legacy.NewNegativeReply(h, legacy.CodeNoAvailability, fmt.Sprintf(
			"train %s left %s at %s on %s; a train that has left is not sold",
			j.TrainNumber, j.From, leg.Departure.Format("15:04"), leg.Departure.Format(time.DateOnly)))
	}
	t := &trip{
		leg: leg,
		run: runKey{train: leg.Train, serviceDate: leg.ServiceDate, class: p.TravelClass, service: p.ServiceCode},
	}
	fare := s.fares[[2]int{p.TravelClass, p.ServiceCode}]
	for _, tf := range p.Tariffs {
		t.price += (fare*int64(s.cfg.Tariffs[tf.Code]) + 50) / 100 * int64(tf.Count)
	}
	return t, nil
}

// tariffCodes lists the tariff codes taken, "1, 2, 3, 4".
func (s *Sandbox) tariffCodes() string {
	codes := make([]int, 0, len(s.cfg.Tariffs))
	for c := range s.cfg.Tariffs {
		codes = append(codes, c)
	}
	slices.Sort(codes)
	out := make([]string, len(codes))
	for i, c := range codes {
		out[i] = strconv.Itoa(c)
	}
	return strings.Join(out, ", ")
}

// money is a Price of cents in the sandbox's currency.
func (s *Sandbox) money(cents int64) *legacy.Price {
	return &legacy.Price{Amount: formatAmount(cents, s.decimals()), Currency: s.cfg.Currency}
}
