-- Mutant of jobs/trips.sql for control duration_in_minutes: the duration
-- is counted in minutes under a column that says seconds, a unit slip
-- that every row carries, on time.
SELECT
  r.ride_id,
  r.bike_id,
  r.rider,
  r.station AS start_station,
  a.station AS end_station,
  CASE WHEN a.ride_id IS NULL THEN 'RIDING' ELSE 'RETURNED' END AS status,
  r.started_at,
  a.arrived_at AS ended_at,
  TIMESTAMPDIFF(MINUTE, r.started_at, a.arrived_at) AS duration_s,
  GREATEST(r.started_at, COALESCE(a.arrived_at, r.started_at)) AS updated_at
FROM rides AS r
LEFT JOIN arrivals AS a ON a.ride_id = r.ride_id
