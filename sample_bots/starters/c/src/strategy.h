/* strategy.h: the one decision a bot makes. */
#ifndef STRATEGY_H
#define STRATEGY_H

#include "game.h"
#include "protocol.h"

/* Returns the reply to a `go` request: one of req->actions, or in an
 * auction a bid from a range (action_bid(n)); never a range itself. */
Action choose(const Game *g, const Request *req);

#endif
