package reconcile

// Stages groups the operations by the rollout order: the applies and waits
// of each stage's clusters, in that stage, then everything else (removals
// from clusters that left the placement, clusters forgotten or skipped) in
// a stage of its own after the last. Stages without operations are dropped.
func Stages(ops []Operation, order [][]string) [][]Operation {
	var out [][]Operation
	for _, stage := range StageGroups(ops, order) {
		if len(stage) > 0 {
			out = append(out, stage)
		}
	}
	return out
}

// StageGroups is Stages with every stage kept, empty or not: one group per
// stage of order, then the group of everything else.
func StageGroups(ops []Operation, order [][]string) [][]Operation {
	stageOf := map[string]int{}
	for i, clusters := range order {
		for _, c := range clusters {
			stageOf[c] = i
		}
	}
	grouped := make([][]Operation, len(order)+1)
	for _, op := range ops {
		i, staged := stageOf[op.Cluster]
		if !staged || (op.Action != Apply && op.Action != Wait) {
			i = len(order)
		}
		grouped[i] = append(grouped[i], op)
	}
	return grouped
}
