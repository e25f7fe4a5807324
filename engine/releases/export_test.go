package releases

import (
	"context"

	"studio/engine/model/release"
)

// ClosureBothWays pins setIDs and removeIDs and adds the dependency closure
// as CreateDraft does, once on the whole site's graph and once on the part
// readGraphOf reads, so a test can prove the two agree.
func (e *Releases) ClosureBothWays(ctx context.Context, siteID string, setIDs, removeIDs []string) (whole, part []release.Item, wholeErr, partErr error) {
	pin := func(g *graph, err error) ([]release.Item, error) {
		if err != nil {
			return nil, err
		}
		items, err := g.pinNamed("rel_test", setIDs, removeIDs, nil)
		if err != nil {
			return nil, err
		}
		if items, err = g.closeOver("rel_test", items); err != nil {
			return nil, err
		}
		if dep, missing := release.MissingDependency(release.Compose(g.liveRefs(), items), items); missing {
			return nil, g.missing(userOf(items, dep), dep)
		}
		return items, g.validate(items)
	}
	whole, wholeErr = pin(e.readGraph(ctx, siteID))
	part, partErr = pin(e.readGraphOf(ctx, siteID, append(append([]string{}, setIDs...), removeIDs...)))
	return whole, part, wholeErr, partErr
}
