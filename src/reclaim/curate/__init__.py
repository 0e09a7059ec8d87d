"""`reclaim curate`: from a conference's accepted papers to a suite draft a person reviews."""
