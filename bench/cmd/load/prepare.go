package main

import "sync"

// prepare calls one(0), one(1), ... on workers goroutines until it holds
// n results or a call fails, and returns the first n results or the
// first failure: the offers and bookings a scenario acts on, made
// beforehand.
func prepare[T any](n, workers int, one func(i int) ([]T, error)) ([]T, error) {
	var (
		mu    sync.Mutex
		made  = make([]T, 0, n)
		first error
		wg    sync.WaitGroup
		next  = make(chan int)
	)
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				got, err := one(i)
				mu.Lock()
				if err != nil && first == nil {
					first = err
				}
				made = append(made, got...)
				mu.Unlock()
			}
		}()
	}
	for i := 0; ; i++ {
		mu.Lock()
		done := len(made) >= n || first != nil
		mu.Unlock()
		if done {
			break
		}
		next <- i
	}
	close(next)
	wg.Wait()
	if first != nil {
		return nil, first
	}
	return made[:n], nil
}
